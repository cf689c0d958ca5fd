/**
 * Which addresses an OAuth exchange may reach. The operator chose a connection's URL; the URLs
 * its servers name (the protected resource's metadata, the authorization server and its
 * endpoints) are the remote server's choice. So a URL a server names must be as public as the
 * connection it speaks for: a server on the internet cannot point the gate into its own network,
 * and nothing points it at a link-local address (a cloud's metadata service) or a multicast one.
 */
import { lookup as systemLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { Agent, buildConnector } from 'undici';

/** How far inside the network an address is, the most inside first. */
export type Reach = 'loopback' | 'private' | 'public';
type AddressClass = Reach | 'never';

function subnets(list: [string, number][]): BlockList {
  const block = new BlockList();
  for (const [network, prefix] of list) {
    block.addSubnet(network, prefix, isIP(network) === 6 ? 'ipv6' : 'ipv4');
  }
  return block;
}

// IPv4-mapped IPv6 addresses (::ffff:a.b.c.d) are checked against the IPv4 subnets by BlockList.
const never = subnets([
  ['0.0.0.0', 8], // "this network", and 0.0.0.0 which reaches the local host
  ['169.254.0.0', 16], // link-local: cloud metadata services
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and broadcast
  ['100.100.100.200', 32], // a cloud metadata service inside the shared address space
  ['::', 128],
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
  ['fd00:ec2::254', 128], // a cloud metadata service inside the unique local range
]);
const loopback = subnets([
  ['127.0.0.0', 8],
  ['::1', 128],
]);
const privateRanges = subnets([
  ['10.0.0.0', 8],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['100.64.0.0', 10], // shared address space (carrier-grade NAT)
  ['198.18.0.0', 15], // network benchmarking
  ['fc00::', 7], // unique local
]);

/** Where an IP address is; anything not named above is public. */
export function addressClass(address: string): AddressClass {
  const family = isIP(address);
  if (family === 0) throw new TypeError(`not an IP address: ${address}`);
  const type = family === 6 ? 'ipv6' : 'ipv4';
  if (never.check(address, type)) return 'never';
  if (loopback.check(address, type)) return 'loopback';
  if (privateRanges.check(address, type)) return 'private';
  return 'public';
}

const depth: Record<Reach, number> = { loopback: 0, private: 1, public: 2 };

/** Whether an exchange for a connection of `reach` may connect to `address`. */
export function mayReach(reach: Reach, address: string): boolean {
  const where = addressClass(address);
  return where !== 'never' && depth[where] >= depth[reach];
}

/** The reach of a connection's own addresses: the most inside of them (the operator chose it). */
export function reachOfAddresses(addresses: string[]): Reach {
  let reach: Reach = 'public';
  for (const address of addresses) {
    const where = addressClass(address);
    // A connection the operator placed on an odd address still speaks for an inside network.
    const inside: Reach = where === 'never' ? 'private' : where;
    if (depth[inside] < depth[reach]) reach = inside;
  }
  return reach;
}

/** A host's addresses: an IP literal itself, else what the resolver answers. */
export function addressesOf(host: string): Promise<string[]> {
  const literal = host.replace(/^\[(.*)\]$/, '$1');
  if (isIP(literal) !== 0) return Promise.resolve([literal]);
  return new Promise((resolve, reject) => {
    systemLookup(literal, { all: true }, (err, found) => {
      if (err) reject(err);
      else resolve(found.map((entry) => entry.address));
    });
  });
}

/** A URL an exchange was not allowed to reach: the message names the host and why. */
export class UnreachableAddressError extends Error {
  override name = 'UnreachableAddressError';
  constructor(host: string, address: string, reach: Reach) {
    const where = addressClass(address);
    super(
      where === 'never'
        ? `${host} is at ${address}, a link-local, multicast or reserved address: the gate never connects there`
        : `${host} is at ${address}, a ${where} address, while the connection's own server is ${reach === 'public' ? 'public' : `on a ${reach} address`}: a server may name only addresses as public as its own`,
    );
  }
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A resolver for net.connect that answers only the addresses `reach` allows, so that a name is
 * checked on the address actually connected to (a name that resolves elsewhere by the time of
 * the connection, DNS rebinding, is checked again).
 */
export function reachableLookup(
  reach: Reach,
  resolve: typeof systemLookup = systemLookup,
): (hostname: string, options: LookupOptions, callback: LookupCallback) => void {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (err, found: LookupAddress[]) => {
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

const agents = new Map<Reach, Agent>();

/**
 * An HTTP agent that connects only where `reach` allows: a name through `reachableLookup`, an IP
 * literal (which the resolver never sees) checked here. One per reach, its connections kept.
 */
export function reachAgent(reach: Reach, connectTimeoutMs: number): Agent {
  let agent = agents.get(reach);
  if (!agent) {
    // The options reach net.connect and tls.connect, whose `lookup` this is.
    const connect = buildConnector({
      timeout: connectTimeoutMs,
      lookup: reachableLookup(reach),
    });
    agent = new Agent({
      connect: (options, callback) => {
        const host = options.hostname.replace(/^\[(.*)\]$/, '$1');
        if (isIP(host) !== 0 && !mayReach(reach, host)) {
          callback(new UnreachableAddressError(host, host, reach), null);
          return;
        }
        connect(options, callback);
      },
    });
    agents.set(reach, agent);
  }
  return agent;
}
