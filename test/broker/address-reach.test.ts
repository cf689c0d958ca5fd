/**
 * An OAuth exchange reaches only addresses as public as its connection's server: a server cannot
 * point the gate into the network behind it, nor at a link-local or "this host" address.
 */
import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { fetch } from 'undici';
import {
  addressClass,
  brokerResolver,
  connectionReach,
  heldReach,
  mayReach,
  reachAgent,
  reachableLookup,
  UnreachableAddressError,
  type Reach,
} from '../../src/broker/address-reach.js';
import {
  beginAuthorization,
  OAuthFlowError,
  revokeCustody,
} from '../../src/broker/oauth-client.js';

test('each address is where its range says, IPv4-mapped IPv6 as its IPv4', () => {
  const table: [string, ReturnType<typeof addressClass>][] = [
    ['127.0.0.1', 'loopback'],
    ['127.8.9.10', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['172.32.0.1', 'public'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'private'],
    ['fd12:3456::1', 'private'],
    ['::ffff:10.0.0.1', 'private'],
    ['169.254.169.254', 'never'],
    ['::ffff:169.254.169.254', 'never'],
    ['::ffff:a9fe:a9fe', 'never'],
    ['100.100.100.200', 'never'],
    ['fd00:ec2::254', 'never'],
    ['fe80::1', 'never'],
    ['0.0.0.0', 'never'],
    ['::', 'never'],
    ['224.0.0.1', 'never'],
    ['255.255.255.255', 'never'],
    ['93.184.216.34', 'public'],
    // Documentation ranges: never a server, and routed who knows where.
    ['203.0.113.7', 'never'],
    ['198.51.100.1', 'never'],
    ['2001:db8::1', 'never'],
    ['2606:2800:220:1::', 'public'],
    ['8.8.8.8', 'public'],
    // IPv4 carried in IPv6: SIIT, NAT64, IPv4-compatible, as the IPv4 address.
    ['::ffff:0:a9fe:a9fe', 'never'],
    ['64:ff9b::a00:1', 'private'],
    ['64:ff9b::169.254.169.254', 'never'],
    ['64:ff9b::8.8.8.8', 'public'],
    ['::7f00:1', 'loopback'],
    ['64:ff9b:1::a9fe:a9fe', 'never'],
    ['fec0::1', 'private'],
    ['2002:7f00:1::1', 'never'],
    ['2001:0:4136:e378::1', 'never'],
    ['168.63.129.16', 'never'],
    ['192.0.0.170', 'never'],
  ];
  for (const [address, where] of table) assert.equal(addressClass(address), where, address);
  assert.throws(() => addressClass('localhost'), TypeError);
});

test('a connection reaches its own class and anything more public, never a link-local address', () => {
  const cases: [Reach, string, boolean][] = [
    ['public', '8.8.8.8', true],
    ['public', '10.0.0.1', false],
    ['public', '127.0.0.1', false],
    ['public', '::ffff:192.168.0.1', false],
    ['private', '10.0.0.1', true],
    ['private', '8.8.8.8', true],
    ['private', '127.0.0.1', false],
    ['loopback', '127.0.0.1', true],
    ['loopback', '10.0.0.1', true],
    ['loopback', '8.8.8.8', true],
    ['loopback', '169.254.169.254', false],
    ['loopback', '0.0.0.0', false],
  ];
  for (const [reach, address, allowed] of cases) {
    assert.equal(mayReach(reach, address), allowed, `${reach} -> ${address}`);
  }
});

test("a connection's reach is its URL as the operator wrote it: an inside address or localhost, else public", () => {
  const cases: [string, Reach][] = [
    ['https://mcp.example.com/mcp', 'public'],
    // A name is public whatever it resolves to: its owner answers its DNS.
    ['https://intranet.corp/mcp', 'public'],
    ['http://localhost:3000/mcp', 'loopback'],
    // Only localhost itself: a subdomain goes to DNS (and its search domains).
    ['http://notes.localhost:3000/mcp', 'public'],
    ['http://127.0.0.1:3000/mcp', 'loopback'],
    ['http://[::1]:3000/mcp', 'loopback'],
    ['http://10.0.0.5/mcp', 'private'],
    ['http://[fd00::5]/mcp', 'private'],
    // Never dialled: the exchange fails at the server's own first request.
    ['http://0.0.0.0:3000/mcp', 'public'],
    ['https://93.184.216.34/mcp', 'public'],
  ];
  for (const [url, reach] of cases) assert.equal(connectionReach(url), reach, url);
  // The operator may say a named server is inside: its name may then resolve to any inside address.
  assert.equal(heldReach('https://mcp.corp/mcp', { private_network: true }), 'loopback');
  assert.equal(heldReach('https://mcp.corp/mcp', {}), 'public');
  assert.equal(heldReach('http://localhost:3000/mcp', { private_network: true }), 'loopback');
});

describe('the resolver a connection dials through', () => {
  /** A resolver that answers `names` as given, as dns.lookup does with `all`. */
  const resolver =
    (names: Record<string, string[]>) =>
    (
      hostname: string,
      _options: unknown,
      callback: (err: NodeJS.ErrnoException | null, found: LookupAddress[]) => void,
    ) => {
      const found = names[hostname] ?? [];
      callback(
        null,
        found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
      );
    };
  const resolve = (reach: Reach, hostname: string, all: boolean) =>
    new Promise<{ err: Error | null; answer: unknown }>((done) => {
      const lookup = reachableLookup(
        reach,
        resolver({
          'rebound.example': ['10.0.0.7'],
          'mixed.example': ['10.0.0.7', '93.184.216.34'],
          'metadata.example': ['169.254.169.254'],
        }),
      );
      lookup(hostname, { all }, (err, address) => {
        done({ err, answer: address });
      });
    });

  test('a public name that resolves inside is refused, naming the host and its address', async () => {
    const { err } = await resolve('public', 'rebound.example', true);
    assert.ok(err instanceof UnreachableAddressError);
    assert.match(err.message, /rebound\.example is at 10\.0\.0\.7, a private address/);
    const metadata = await resolve('loopback', 'metadata.example', false);
    assert.ok(metadata.err instanceof UnreachableAddressError);
    assert.match(metadata.err.message, /never connects there/);
  });

  test('of a name with addresses both sides, only the reachable ones are dialled', async () => {
    assert.deepEqual(await resolve('public', 'mixed.example', true), {
      err: null,
      answer: [{ address: '93.184.216.34', family: 4 }],
    });
    assert.deepEqual(await resolve('public', 'mixed.example', false), {
      err: null,
      answer: '93.184.216.34',
    });
  });
});

describe('over real connections', () => {
  const system = brokerResolver(undefined);
  const received: IncomingMessage[] = [];
  let server: Server;
  let port: number;
  /** The protected resource's metadata names this authorization server. */
  let namedServer = '';

  beforeAll(async () => {
    server = createServer((request, response) => {
      received.push(request);
      const here = `http://127.0.0.1:${port}`;
      if (request.url === '/revoke') {
        response.writeHead(307, { location: `${here}/elsewhere` });
        response.end();
        return;
      }
      if (request.url?.startsWith('/.well-known/oauth-protected-resource')) {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({ resource: `${here}/mcp`, authorization_servers: [namedServer] }),
        );
        return;
      }
      response.writeHead(401, {
        'www-authenticate': `Bearer resource_metadata="${here}/.well-known/oauth-protected-resource/mcp"`,
      });
      response.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  test('an agent for a public connection dials no loopback server, by IP literal or by name', async () => {
    const agent = reachAgent('public', 5_000);
    for (const url of [`http://127.0.0.1:${port}/`, `http://localhost:${port}/`]) {
      const before = received.length;
      const error = await fetch(url, { dispatcher: agent }).then(
        () => undefined,
        (err: unknown) => err,
      );
      assert.ok(error instanceof TypeError, url);
      assert.ok(error.cause instanceof UnreachableAddressError, `${url}: ${String(error.cause)}`);
      assert.equal(received.length, before, `${url} was not dialled`);
    }
    // The same server, from a connection on loopback: reached.
    const reached = await fetch(`http://127.0.0.1:${port}/`, {
      dispatcher: reachAgent('loopback', 5_000),
    });
    assert.equal(reached.status, 401);
  });

  test('a resource naming a link-local or "this host" authorization server: the authorization fails naming it, and nothing is dialled there', async () => {
    for (const named of [
      'http://169.254.169.254/',
      'http://[::ffff:169.254.169.254]/',
      // 0.0.0.0 reaches this very host on Linux: the server above, were it dialled.
      `http://0.0.0.0:${port}/`,
    ]) {
      namedServer = named;
      const before = received.length;
      const error = await beginAuthorization(`http://127.0.0.1:${port}/mcp`, {
        redirectUrl: 'http://127.0.0.1:9/callback',
        state: 'state',
        dial: { reach: heldReach(`http://127.0.0.1:${port}/mcp`, {}), resolve: system },
      }).then(
        () => undefined,
        (err: unknown) => err,
      );
      assert.ok(error instanceof OAuthFlowError, `${named}: ${String(error)}`);
      assert.match(error.message, /never connects there/, named);
      // The resource itself was asked (its 401, its metadata); the named server never was.
      const asked = received.slice(before).map((request) => request.url);
      assert.ok(
        asked.every((url) => url === '/mcp' || url?.startsWith('/.well-known/')),
        JSON.stringify(asked),
      );
      assert.ok(!asked.some((url) => url?.includes('oauth-authorization-server')), named);
    }
  });

  test('a revocation endpoint that redirects is a failure: the tokens are not sent on', async () => {
    const here = `http://127.0.0.1:${port}`;
    const before = received.length;
    const error = await revokeCustody(
      { reach: 'loopback', resolve: system },
      {
        type: 'oauth',
        client: { client_id: 'gate' },
        discovery: {
          authorizationServerUrl: here,
          authorizationServerMetadata: {
            issuer: here,
            authorization_endpoint: `${here}/authorize`,
            token_endpoint: `${here}/token`,
            response_types_supported: ['code'],
            revocation_endpoint: `${here}/revoke`,
          },
        },
        tokens: {
          access_token: 'access-canary',
          refresh_token: 'refresh-canary',
          token_type: 'bearer',
        },
      },
    ).then(
      () => undefined,
      (err: unknown) => err,
    );
    assert.ok(error instanceof OAuthFlowError, String(error));
    assert.match(error.message, /HTTP 307/);
    assert.deepEqual(
      received.slice(before).map((request) => request.url),
      ['/revoke'],
      'the redirect was not followed',
    );
  });
});
