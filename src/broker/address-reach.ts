/**
 * Which addresses a connection's exchanges may reach, its MCP traffic and its OAuth exchanges
 * alike. The operator chose a connection's URL; what its name resolves to, and the URLs its
 * servers name (the protected resource's metadata, the authorization server and its endpoints),
 * are the remote server's choice. So every address dialled must be as public as the connection's
 * own URL: a server on the internet cannot point the gate into its own network, and nothing
 * points it at a link-local address (a cloud's metadata service) or a multicast one.
 */
import {
  lookup as systemLookup,
  promises as dns,
  type LookupAddress,
  type LookupOptions,
} from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { Agent, buildConnector } from 'undici';
import { GateError } from '../domain/errors.js';

/** How far inside the network an address is, the most inside first. */
export type Reach = 'loopback' | 'private' | 'public';
type AddressClass = Reach | 'never';

type Subnet = [network: string, prefix: number];

/**
 * IPv6 forms that carry an IPv4 address in their last 32 bits, each reaching (or translated to)
 * that IPv4 address: IPv4-mapped, SIIT, NAT64's well-known prefix, and IPv4-compatible.
 */
const carriesIpv4 = ['::ffff:', '::ffff:0:', '64:ff9b::', '::'];

function subnets(list: Subnet[]): BlockList {
  const block = new BlockList();
  for (const [network, prefix] of list) {
    if (isIP(network) === 6) {
      block.addSubnet(network, prefix, 'ipv6');
      continue;
    }
    block.addSubnet(network, prefix, 'ipv4');
    for (const form of carriesIpv4) block.addSubnet(`${form}${network}`, 96 + prefix, 'ipv6');
  }
  return block;
}

const loopback = subnets([
  ['127.0.0.0', 8],
  ['::1', 128],
]);
const never = subnets([
  ['0.0.0.0', 8], // "this network", and 0.0.0.0 which reaches this very host
  ['::', 128],
  ['169.254.0.0', 16], // link-local: cloud metadata services
  ['168.63.129.16', 32], // a cloud's host agent
  ['100.100.100.200', 32], // a cloud metadata service inside the shared address space
  ['192.0.0.0', 24], // protocol assignments
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and broadcast
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
  ['fd00:ec2::254', 128], // a cloud metadata service inside the unique local range
  ['100::', 64], // discard
  ['2001::', 32], // Teredo: an IPv4 address behind it
  ['2002::', 16], // 6to4: an IPv4 address inside it
  ['64:ff9b:1::', 48], // local-use IPv4/IPv6 translation, to any IPv4 address
  // Documentation ranges: no server is there, and a network may route them anywhere.
  ['192.0.2.0', 24],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['2001:db8::', 32],
]);
const privateRanges = subnets([
  ['10.0.0.0', 8],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['100.64.0.0', 10], // shared address space (carrier-grade NAT)
  ['198.18.0.0', 15], // network benchmarking
  ['fc00::', 7], // unique local
  ['fec0::', 10], // site-local, deprecated but routed by some
]);

/** Where an IP address is; anything not named above is public. */
export function addressClass(address: string): AddressClass {
  const family = isIP(address);
  if (family === 0) throw new TypeError(`not an IP address: ${address}`);
  const type = family === 6 ? 'ipv6' : 'ipv4';
  // Loopback first: ::1 is also inside the IPv4-compatible form of 0.0.0.0/8.
  if (loopback.check(address, type)) return 'loopback';
  if (never.check(address, type)) return 'never';
  if (privateRanges.check(address, type)) return 'private';
  return 'public';
}

const depth: Record<Reach, number> = { loopback: 0, private: 1, public: 2 };

/** Whether an exchange for a connection of `reach` may connect to `address`. */
export function mayReach(reach: Reach, address: string): boolean {
  const where = addressClass(address);
  return where !== 'never' && depth[where] >= depth[reach];
}

const unbracketed = (host: string) => host.replace(/^\[(.*)\]$/, '$1');

/**
 * A connection's reach, from its URL as the operator wrote it, never from a resolver: a name's
 * owner answers its DNS, and could answer an inside address to widen what its server may name.
 * An inside IP address, or `localhost`, is inside; every other name is public. (A server on a
 * never-dialled address gets `public`: its exchange fails at its own first request.)
 */
export function connectionReach(serverUrl: string): Reach {
  const host = unbracketed(new URL(serverUrl).hostname.toLowerCase()).replace(/\.$/, '');
  if (host === 'localhost') return 'loopback';
  if (isIP(host) === 0) return 'public';
  const where = addressClass(host);
  return where === 'never' ? 'public' : where;
}

/**
 * How far a connection's traffic may reach: from its URL, or every inside address where the
 * operator said its server, named by a host, is inside (the operator vouches for that name's DNS).
 */
export function heldReach(serverUrl: string, held: { private_network?: true | undefined }): Reach {
  const reach = connectionReach(serverUrl);
  return held.private_network ? 'loopback' : reach;
}

/** A URL an exchange was not allowed to reach: the message names the host and why. */
export class UnreachableAddressError extends GateError {
  override name = 'UnreachableAddressError';
  readonly code = 'address_refused';
  constructor(host: string, address: string, reach: Reach) {
    const where = addressClass(address);
    const at = host === address ? address : `${host} is at ${address},`;
    super(
      where === 'never'
        ? `${at} a link-local, multicast or reserved address: the gate never connects there`
        : `${at} a ${where} address, while the connection's own server is ${reach === 'public' ? 'public' : `on a ${reach} address`}: a server may name only addresses as public as its own`,
    );
  }
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/** How the broker resolves a host name: dns.lookup's shape, always asked with `all`. */
export type Resolve = (
  hostname: string,
  options: LookupOptions & { all: true },
  callback: (err: NodeJS.ErrnoException | null, found: LookupAddress[]) => void,
) => void;

/**
 * The broker's resolver: the system's, or the DNS servers the operator names (ip or ip:port),
 * asked for A and AAAA. `localhost` is always this host's loopback (RFC 6761), never asked.
 */
export function brokerResolver(servers: readonly string[] | undefined): Resolve {
  if (!servers?.length) return systemLookup;
  const resolver = new dns.Resolver({ timeout: 2_000, tries: 2 });
  resolver.setServers([...servers]);
  const none = (err: unknown) => {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENODATA' || code === 'ENOTFOUND') return [];
    throw err;
  };
  return (hostname, _options, callback) => {
    if (hostname.toLowerCase().replace(/\.$/, '') === 'localhost') {
      callback(null, [
        { address: '127.0.0.1', family: 4 },
        { address: '::1', family: 6 },
      ]);
      return;
    }
    Promise.all([
      resolver.resolve4(hostname).catch(none),
      resolver.resolve6(hostname).catch(none),
    ]).then(
      ([v4, v6]) => {
        callback(null, [
          ...v4.map((address) => ({ address, family: 4 })),
          ...v6.map((address) => ({ address, family: 6 })),
        ]);
      },
      (err: unknown) => {
        callback(err as NodeJS.ErrnoException, []);
      },
    );
  };
}

/**
 * A resolver for net.connect that answers only the addresses `reach` allows, so that a name is
 * checked on the address actually connected to (a name that resolves elsewhere by the time of
 * the connection, DNS rebinding, is checked again).
 */
export function reachableLookup(
  reach: Reach,
  resolve: Resolve = systemLookup,
): (hostname: string, options: LookupOptions, callback: LookupCallback) => void {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (err, found) => {
      if (err) {
        callback(err, []);
        return;
      }
      const allowed = found.filter((entry) => mayReach(reach, entry.address));
      const first = allowed[0];
      const refused = found[0];
      if (!first) {
        callback(
          refused
            ? new UnreachableAddressError(hostname, refused.address, reach)
            : Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }),
          [],
        );
        return;
      }
      if (options.all) callback(null, allowed);
      else callback(null, first.address, first.family);
    });
  };
}

const agents = new WeakMap<Resolve, Map<string, Agent>>();

/**
 * An HTTP agent that connects only where `reach` allows: a name through `reachableLookup` (each
 * new socket resolves again, so a name answered elsewhere after `Connection: close` is checked
 * again), an IP literal (which the resolver never sees) checked here. One per reach and
 * resolver, its connections kept.
 */
export function reachAgent(
  reach: Reach,
  connectTimeoutMs: number,
  resolve: Resolve = systemLookup,
): Agent {
  const key = `${reach}/${connectTimeoutMs}`;
  let byReach = agents.get(resolve);
  if (!byReach) {
    byReach = new Map();
    agents.set(resolve, byReach);
  }
  let agent = byReach.get(key);
  if (!agent) {
    // The options reach net.connect and tls.connect, whose `lookup` this is.
    const connect = buildConnector({
      timeout: connectTimeoutMs,
      lookup: reachableLookup(reach, resolve),
    });
    agent = new Agent({
      connect: (options, callback) => {
        const host = unbracketed(options.hostname);
        if (isIP(host) !== 0 && !mayReach(reach, host)) {
          callback(new UnreachableAddressError(host, host, reach), null);
          return;
        }
        connect(options, callback);
      },
    });
    byReach.set(key, agent);
  }
  return agent;
}
