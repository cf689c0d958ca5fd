/**
 * A refresh stays inside its lease: one deadline bounds the whole exchange, however many
 * redirects its token endpoint answers, and a holder whose lease was taken over writes nothing.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, test } from 'vitest';
import { brokerResolver } from '../../src/broker/address-reach.js';
import {
  exchangeTimeoutMs,
  OAuthFlowError,
  refreshCustody,
} from '../../src/broker/oauth-client.js';
import {
  markNeedsReauthorization,
  storeRefreshedTokens,
} from '../../src/store/oauth-connections.js';
import { createPool, type Pool } from '../../src/store/pool.js';
import { useHarness } from '../support/harness.js';
import { expectStatus } from '../support/seed.js';

const h = useHarness();

let server: Server;
let here = '';
/** How many times the refresh token was POSTed. */
let posted = 0;
let pool: Pool;

beforeAll(async () => {
  // A token endpoint that answers every POST, after 2 s, with a same-origin 307 to itself.
  server = createServer((request, response) => {
    request.resume();
    posted += 1;
    setTimeout(() => {
      response.writeHead(307, { location: `${here}/token?hop=${posted}` });
      response.end();
    }, 2_000);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  here = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  pool = createPool(h.api.config.databaseUrl);
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await pool.end();
});

test('a token endpoint answering same-origin 307s: the refresh ends within its one deadline', async () => {
  const started = Date.now();
  const error = await refreshCustody(
    { reach: 'loopback', resolve: brokerResolver(undefined) },
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
        },
      },
      tokens: { access_token: 'old', token_type: 'Bearer', refresh_token: 'canary-refresh' },
    },
  ).then(
    () => undefined,
    (err: unknown) => err,
  );
  const took = Date.now() - started;
  assert.ok(error instanceof OAuthFlowError, String(error));
  // One deadline (about 10 s quiet), not a fresh one per request or hop: whatever the machine's
  // load, the exchange ends inside the 30 s lease, so no other holder can spend the token too.
  assert.ok(took < 25_000, `the refresh took ${took} ms (its deadline ${exchangeTimeoutMs} ms)`);
  assert.ok(posted <= 6, `the refresh token was posted ${posted} times`);
}, 90_000);

test('a holder whose lease was taken over writes nothing', async () => {
  const created = await expectStatus(
    h.api.call('POST', '/v1/connections', {
      token: h.api.operatorKey,
      body: {
        workspace: h.seed.workspace,
        name: 'leased',
        kind: 'org',
        url: `${here}/mcp`,
        credential: { type: 'oauth', client_id: 'gate' },
      },
    }),
    201,
  );
  const id = created.id as string;
  // Active, and the lease now another holder's: the first one's ran out and was taken over.
  await pool.query(
    `update connections set status = 'active', refresh_lease = '00000000-0000-4000-8000-00000000000b',
       refresh_lease_until = now() + interval '30 seconds' where id = $1`,
    [id],
  );
  const before = await pool.query(`select * from connections where id = $1`, [id]);
  const stored = await storeRefreshedTokens(pool, id, '00000000-0000-4000-8000-00000000000a', () =>
    Buffer.from('overwritten'),
  );
  assert.equal(stored, 'lease_lost');
  assert.equal(
    await markNeedsReauthorization(pool, id, '00000000-0000-4000-8000-00000000000a', 'refused'),
    false,
  );
  const after = await pool.query(`select * from connections where id = $1`, [id]);
  assert.deepEqual(after.rows[0], before.rows[0]);
});
