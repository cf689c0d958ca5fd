/**
 * Every byte the gate sends to a connection's servers dials only where the connection may reach,
 * checked on the address each socket opens to. A DNS server of the test's own, which the gate's
 * broker is pointed at (GATE_BROKER_DNS_SERVERS), plays the hostile name's owner. Nothing here
 * sends a packet off loopback: the "public" answers are documentation addresses, never dialled.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { brokerResolver } from '../../src/broker/address-reach.js';
import { OAuthFlowError, refreshCustody } from '../../src/broker/oauth-client.js';
import { CredentialSealer } from '../../src/broker/sealing.js';
import { useHarness } from '../support/harness.js';
import { startRugpullUpstream, type RugpullUpstream } from '../support/rugpull-upstream.js';
import { createRun, defaultPolicy, expectStatus, toolCall } from '../support/seed.js';
import { startTestDns } from '../support/test-dns.js';

const dns = await startTestDns();
const policy = { ...defaultPolicy, rules: [{ id: 'all', match: {}, verdict: 'allow' }] };
// A queue of the file's own, served by its API's worker: the one pointed at the test's DNS.
const h = useHarness({
  policy,
  api: {
    temporal: { taskQueue: `dns-rebinding-${randomUUID()}` },
    eagerStart: true,
    brokerDnsServers: [dns.server],
  },
});
const token = `upstream-${randomBytes(16).toString('hex')}`;
const upstreams: RugpullUpstream[] = [];
afterAll(async () => {
  await Promise.all(upstreams.map((upstream) => upstream.close()));
  await dns.close();
});

/** A documentation address: public-looking, and never dialled. */
const publicLooking = '203.0.113.7';
const op = () => ({ token: h.api.operatorKey });

async function upstream(): Promise<RugpullUpstream> {
  const started = await startRugpullUpstream({ token, closeAfterEachAnswer: true });
  upstreams.push(started);
  return started;
}

/** The upstream's URL with its address replaced by `host`, a name the test's DNS answers. */
const named = (server: RugpullUpstream, host: string) => server.url.replace('127.0.0.1', host);

function register(name: string, url: string, credential: Record<string, unknown>) {
  return h.api.call('POST', '/v1/connections', {
    ...op(),
    body: { workspace: h.seed.workspace, name, kind: 'org', url, credential },
  });
}

async function brokeredCall(connectionId: string, name: string) {
  const run = await createRun(h.api, h.seed, {
    tools: { bundles: [], connections: [{ id: connectionId }] },
  });
  const body = {
    tool: `mcp__${name}__create_note`,
    arguments: { title: 't', body: 'b' },
    execute: true,
  };
  const put = await toolCall(h.api, run, 'c1', body);
  if (put.status === 200) return put.body;
  assert.equal(put.status, 202, JSON.stringify(put.body));
  return expectStatus(
    h.api.call('GET', `/v1/sessions/${run.session_id}/tool-calls/c1?wait=30`, {
      token: run.session_token,
    }),
    200,
  );
}

describe('a connection named by a public host', () => {
  test('a photograph never reaches the server its name answers inside, nor a public-looking address', async () => {
    const server = await upstream();
    const host = `photo-${randomUUID().slice(0, 8)}.rebind.test`;
    const url = named(server, host);
    for (const address of [publicLooking, '127.0.0.1', '0.0.0.0']) {
      dns.answer((name) => (name === host ? [address] : []));
      const answer = await register(`photo-${address.replaceAll('.', '-')}`, url, {
        type: 'bearer',
        token,
      });
      assert.equal(answer.status, 502, JSON.stringify(answer.body));
      assert.match(
        JSON.stringify(answer.body),
        new RegExp(`is at ${address.replaceAll('.', '\\.')}`),
      );
    }
    assert.equal(server.requests, 0, 'nothing reached the server inside');
    assert.ok(
      dns.asked.some((entry) => entry.name === host),
      'the gate asked the test DNS',
    );
  });

  test('a brokered call on a connection whose name now answers 127.0.0.1 sends nothing there, and the sandbox reads a fixed sentence', async () => {
    const server = await upstream();
    const host = `call-${randomUUID().slice(0, 8)}.rebind.test`;
    dns.answer((name) => (name === host ? ['127.0.0.1'] : []));
    // Registered as inside (the operator's word), then the word withdrawn: the connection's row now
    // reads as a public server whose name answered a public address when it was photographed.
    const connection = await expectStatus(
      register('call', named(server, host), { type: 'bearer', token, private_network: true }),
      201,
    );
    const sealer = CredentialSealer.fromBase64(h.api.config.sealingKey);
    await h.db.query(`update connections set sealed_credential = $2 where id = $1`, [
      connection.id,
      sealer.seal(connection.id, { type: 'bearer', token }).toBytes(),
    ]);
    const before = server.requests;
    const answer = await brokeredCall(connection.id, 'call');
    assert.equal(answer.decision, 'allow');
    assert.equal(answer.result.isError, true);
    assert.equal(
      answer.result.content[0].text,
      "the upstream call failed (refused_address): the upstream server's name resolved to an address this connection may not reach",
    );
    assert.equal(server.requests, before, 'no request reached the server inside');
    assert.deepEqual(server.calls, []);
  });
});

describe('a connection the operator says is inside (private_network)', () => {
  test('a name answered again after Connection: close is checked again: the tools/call never reaches 0.0.0.0', async () => {
    const server = await upstream();
    const host = `rebind-${randomUUID().slice(0, 8)}.rebind.test`;
    dns.answer((name) => (name === host ? ['127.0.0.1'] : []));
    const connection = await expectStatus(
      register('rebind', named(server, host), { type: 'bearer', token, private_network: true }),
      201,
    );
    // Once the call's tools/list is answered (and its connection closed), the name answers
    // 0.0.0.0: on Linux that reaches this very host, the server above, were it dialled.
    const listedBefore = server.lists;
    dns.answer((name) => {
      if (name !== host) return [];
      return server.lists > listedBefore ? ['0.0.0.0'] : ['127.0.0.1'];
    });
    const answer = await brokeredCall(connection.id, 'rebind');
    assert.ok(server.lists > listedBefore, 'the call read the tools/list first');
    assert.ok(
      dns.asked.some((entry) => entry.name === host && entry.answered[0] === '0.0.0.0'),
      'the gate resolved the name again after the connection closed',
    );
    assert.equal(answer.result.isError, true, JSON.stringify(answer));
    assert.match(answer.result.content[0].text, /\(refused_address\)/);
    assert.doesNotMatch(answer.result.content[0].text, /0\.0\.0\.0|rebind\.test/);
    assert.deepEqual(server.calls, [], 'the tools/call never reached the server');
  });

  test('a bearer connection with private_network still reaches its inside server', async () => {
    const server = await upstream();
    const host = `inside-${randomUUID().slice(0, 8)}.rebind.test`;
    dns.answer((name) => (name === host ? ['127.0.0.1'] : []));
    const connection = await expectStatus(
      register('inside', named(server, host), { type: 'bearer', token, private_network: true }),
      201,
    );
    const answer = await brokeredCall(connection.id, 'inside');
    assert.equal(answer.result.isError, undefined, JSON.stringify(answer));
    assert.equal(server.calls.length, 1);
    // Without the operator's word, the same name is refused.
    const refused = await register('outside', named(server, host), { type: 'bearer', token });
    assert.equal(refused.status, 502);
    assert.match(JSON.stringify(refused.body), /a loopback address/);
  });
});

describe('an OAuth refresh', () => {
  let tokenServer: Server;
  let tokenRequests = 0;
  let port: number;
  beforeAll(async () => {
    tokenServer = createServer((request, response) => {
      tokenRequests += 1;
      request.resume();
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ access_token: 'fresh', token_type: 'Bearer' }));
    });
    await new Promise<void>((resolve) => tokenServer.listen(0, '127.0.0.1', resolve));
    port = (tokenServer.address() as AddressInfo).port;
  });
  afterAll(() => new Promise((resolve) => tokenServer.close(resolve)));

  test('a token endpoint whose name answers inside, or a public-looking address, is never dialled', async () => {
    const host = `auth-${randomUUID().slice(0, 8)}.rebind.test`;
    const issuer = `http://${host}:${port}`;
    const custody = {
      type: 'oauth' as const,
      client: { client_id: 'gate' },
      tokens: { access_token: 'old', token_type: 'Bearer', refresh_token: 'canary-refresh' },
      discovery: {
        authorizationServerUrl: issuer,
        authorizationServerMetadata: {
          issuer,
          authorization_endpoint: `${issuer}/authorize`,
          token_endpoint: `${issuer}/token`,
          response_types_supported: ['code'],
        },
      },
    };
    const dial = { reach: 'public' as const, resolve: brokerResolver([dns.server]) };
    for (const address of [publicLooking, '127.0.0.1']) {
      dns.answer((name) => (name === host ? [address] : []));
      const error = await refreshCustody(dial, custody).then(
        () => undefined,
        (err: unknown) => err,
      );
      assert.ok(error instanceof OAuthFlowError, String(error));
      assert.match(
        error.message,
        new RegExp(`${host.replaceAll('.', '\\.')} is at ${address.replaceAll('.', '\\.')}`),
      );
    }
    assert.equal(tokenRequests, 0, 'the refresh token went nowhere');
  });
});
