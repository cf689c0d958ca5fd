/**
 * A hostile authorization server stalls nobody else: a refresh holds a lease on its connection,
 * never a database connection or transaction, while it waits on the server, so the calls queued
 * behind it hold nothing the gate's other workspaces need.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, test } from 'vitest';
import type { OAuthCustody } from '../../src/broker/oauth-custody.js';
import { CredentialSealer } from '../../src/broker/sealing.js';
import { useHarness } from '../support/harness.js';
import { startRugpullUpstream, type RugpullUpstream } from '../support/rugpull-upstream.js';
import {
  createRun,
  defaultPolicy,
  expectStatus,
  seedWorkspace,
  toolCall,
  untilAnswered,
  type CreatedRun,
} from '../support/seed.js';

const stallMs = 10_000;
const storm = { runs: 4, callsPerRun: 50 };
// A queue of the file's own: one worker (the API's) decides both workspaces' calls, as in the
// deployment where one worker's pool serves every workspace.
const h = useHarness({
  policy: { ...defaultPolicy, rules: [{ id: 'all', match: {}, verdict: 'allow' }] },
  api: { temporal: { taskQueue: `stalling-authorization-${randomUUID()}` }, eagerStart: true },
});
const token = `upstream-${randomBytes(16).toString('hex')}`;
let upstream: RugpullUpstream;
let authorizationServer: Server;
let issuer: string;
/** Token requests being stalled now, and the most at once. */
let stalling = 0;
let mostAtOnce = 0;
let tokenRequests = 0;
const stalled = new Set<ServerResponse>();

beforeAll(async () => {
  upstream = await startRugpullUpstream({ token });
  authorizationServer = createServer((request, response) => {
    request.resume();
    if (request.url !== '/token') {
      response.writeHead(404).end();
      return;
    }
    tokenRequests += 1;
    stalling += 1;
    mostAtOnce = Math.max(mostAtOnce, stalling);
    stalled.add(response);
    // A request ends when the gate gives up on it (its 10 s bound) or the stall does.
    const timer = setTimeout(() => response.writeHead(503).end(), stallMs);
    response.on('close', () => {
      clearTimeout(timer);
      stalling -= 1;
      stalled.delete(response);
    });
  });
  await new Promise<void>((resolve) => authorizationServer.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(authorizationServer.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const response of stalled) response.destroy();
  await new Promise((resolve) => authorizationServer.close(resolve));
  await upstream.close();
});

/**
 * An OAuth connection whose access token has expired, its authorization server the stalling one.
 * Photographed as a bearer connection, then given the custody an owner's authorization leaves.
 */
async function expiredOAuthConnection(): Promise<string> {
  const connection = await expectStatus(
    h.api.call('POST', '/v1/connections', {
      token: h.api.operatorKey,
      body: {
        workspace: h.seed.workspace,
        name: 'notes',
        kind: 'org',
        url: upstream.url,
        credential: { type: 'bearer', token },
      },
    }),
    201,
  );
  const custody: OAuthCustody = {
    type: 'oauth',
    client: { client_id: 'gate' },
    discovery: {
      authorizationServerUrl: issuer,
      authorizationServerMetadata: {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        response_types_supported: ['code'],
      },
    },
    tokens: { access_token: token, token_type: 'Bearer', refresh_token: 'canary-refresh' },
    expires_at: Date.now() - 60_000,
  };
  const sealer = CredentialSealer.fromBase64(h.api.config.sealingKey);
  await h.db.query(
    `update connections set credential_type = 'oauth', sealed_credential = $2 where id = $1`,
    [connection.id, sealer.seal(connection.id, custody).toBytes()],
  );
  return connection.id as string;
}

/** Milliseconds of each of `count` allowed calls of `run`, one after another. */
async function allowLatencies(run: CreatedRun, count: number, prefix: string) {
  const latencies: number[] = [];
  const denials: unknown[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    // A runner sends again what a busy machine answered 503: a decision is what is counted.
    const answer = await untilAnswered(() =>
      toolCall(h.api, run, `${prefix}-${i}`, {
        tool: 'Read',
        arguments: { file_path: '/tmp/x' },
      }),
    );
    latencies.push(performance.now() - started);
    if (answer.status !== 200 || answer.body.decision !== 'allow') denials.push(answer.body);
  }
  return { latencies, denials };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

test(
  `an authorization server stalling ${stallMs / 1000} s on every token request, under ${storm.runs * storm.callsPerRun} brokered calls on its connection: another workspace's allows keep their latency, none unavailable`,
  { timeout: 600_000 },
  async () => {
    // Each phase's time, printed as it ends: a run that runs out of its bound says where it went.
    const began = performance.now();
    const phase = (what: string) => {
      process.stdout.write(
        `stalling-authorization: ${what} at ${((performance.now() - began) / 1000).toFixed(1)} s\n`,
      );
    };
    const connectionId = await expiredOAuthConnection();
    const other = await seedWorkspace(h.api, {
      ...defaultPolicy,
      rules: [{ id: 'all', match: {}, verdict: 'allow' }],
    });
    const otherRun = await createRun(h.api, other);
    await allowLatencies(otherRun, 5, 'warm');
    const quiet = await allowLatencies(otherRun, 20, 'quiet');
    assert.deepEqual(quiet.denials, []);
    phase('the quiet allows answered');

    const runs = await Promise.all(
      Array.from({ length: storm.runs }, () =>
        createRun(h.api, h.seed, { tools: { bundles: [], connections: [{ id: connectionId }] } }),
      ),
    );
    const brokered = runs.flatMap((run) =>
      Array.from({ length: storm.callsPerRun }, (_, i) =>
        // A runner sends again what the busy API answered 503 (or 429) to.
        untilAnswered(
          () =>
            toolCall(h.api, run, `storm-${i}`, {
              tool: 'mcp__notes__search_notes',
              arguments: { query: 'q' },
              execute: true,
            }),
          180_000,
        ),
      ),
    );
    // The storm is on: the first refresh is stalled, and the calls behind it wait.
    const sessions = runs.map((run) => run.session_id);
    const stormStarted = performance.now();
    for (;;) {
      const { rows } = await h.db.query<{ n: number }>(
        `select count(*)::int as n from brokered_calls where session_id = any($1)`,
        [sessions],
      );
      // An eighth of the storm claimed (it was a quarter): on a quiet machine within seconds;
      // beside another full suite 35 calls had been claimed after two minutes, the worker's
      // slots held by the calls waiting on the stall. The bound is three minutes.
      if (tokenRequests > 0 && rows[0]!.n >= (storm.runs * storm.callsPerRun) / 8) break;
      assert.ok(
        performance.now() - stormStarted < 180_000,
        `the storm began within 3 minutes: ${rows[0]!.n} brokered calls, ${tokenRequests} token requests`,
      );
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    phase('the storm began');
    // Meanwhile, until the storm is over, what the database sees of the refresh: a transaction on
    // the connection's row (left open, or waiting on its lock) for seconds is a pool client held
    // through the network exchange, which stalls for 10 s. Other files' short transactions on
    // their own connections (this database is the suite's) last milliseconds.
    let heldThroughExchange = 0;
    const sampling = new AbortController();
    const sampler = (async () => {
      while (!sampling.signal.aborted) {
        const { rows } = await h.db.query<{ n: number }>(
          `select count(*)::int as n from pg_stat_activity
            where datname = current_database()
              and query ilike '%from connections%for update%'
              and (state like 'idle in transaction%' or wait_event_type = 'Lock')
              and xact_start < now() - interval '2 seconds'`,
        );
        heldThroughExchange = Math.max(heldThroughExchange, rows[0]!.n);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    let during: Awaited<ReturnType<typeof allowLatencies>>;
    let stillStalling: boolean;
    let answers: Awaited<(typeof brokered)[number]>[];
    try {
      during = await allowLatencies(otherRun, 20, 'during');
      phase('the allows during the stall answered');
      stillStalling = stalling > 0;
      answers = await Promise.all(brokered);
      phase('every brokered call answered');
    } finally {
      sampling.abort();
      await sampler;
    }
    // Quiet again once the storm is over: the machine's other load, before or after, is the
    // quiet value's too.
    const after = await allowLatencies(otherRun, 20, 'after');

    assert.ok(stillStalling, 'measured while a token request was stalled');
    assert.equal(heldThroughExchange, 0, 'no transaction open, nor waiting, on the connection');
    assert.deepEqual(during.denials, [], 'no call of the other workspace denied');
    const quietP50 = Math.max(median(quiet.latencies), median(after.latencies));
    const duringP50 = median(during.latencies);
    // Printed for a quiet machine's figure (within 2x there). Bounded at the catastrophic only: a
    // worker held by the stall puts every decision behind it, the stall's 10 s each. A quarter of
    // the stall on a quiet machine; beside another full suite on two cores, where the storm's own
    // 200 calls (decided by the same worker) took this p50 to 3.5 s against 0.39 s quiet, twelve
    // times the quiet figure. A transaction held through the exchange is what the sampler above
    // asserts directly.
    process.stdout.write(
      `allow p50 during the stall ${duringP50.toFixed(1)} ms, quiet ${quietP50.toFixed(1)} ms (${(duringP50 / quietP50).toFixed(2)}x)\n`,
    );
    assert.ok(
      duringP50 < Math.max(stallMs / 4, 12 * quietP50),
      `p50 ${duringP50.toFixed(1)} ms during the stall, ${quietP50.toFixed(1)} ms quiet`,
    );
    assert.equal(mostAtOnce, 1, 'one refresh at a time: the lease has one holder');
    // The stalled connection's own calls fail closed, each with an error result: past the
    // workspace's share of brokered calls at once, or the refresh failed; on a starved machine an
    // attempt may time out and its retry not repeat it, or the call's workflow reach its own
    // bound before the broker's result (beside another suite: "the gate ended before the result").
    // Beside another suite a stage may also find PostgreSQL or Temporal past the call's window,
    // and the call is denied before anything is carried out: that fails closed too.
    for (const answer of answers.filter((each) => each.status === 200)) {
      if (answer.body.decision === 'deny') {
        assert.match(answer.body.reason, /failing closed/, JSON.stringify(answer.body));
        continue;
      }
      assert.equal(answer.body.result?.isError, true, JSON.stringify(answer.body));
      assert.match(
        answer.body.result.content[0].text,
        /could not be refreshed|did not finish; it is not repeated|as many as it may at once|could not be carried out \(the (broker (timed out|failed)|gate ended before the result)\)$/,
      );
    }
    const odd = answers.filter((answer) => answer.status !== 200 && answer.status !== 202);
    assert.deepEqual(odd, [], 'every brokered call answered, or is still evaluating');
    assert.deepEqual(upstream.calls, [], 'no call went out with the expired token');
  },
);
