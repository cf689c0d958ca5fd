/**
 * A proxied model request's settlement has connections of its own: a burst of another
 * workspace's admissions, each waiting on its level's row, holds every connection of the API's
 * pool, and a request that is answered meanwhile still settles its hold, and its client is
 * answered, at once.
 */
import assert from 'node:assert/strict';
import { afterAll, beforeAll, test } from 'vitest';
import { startFakeAnthropic, text, type FakeAnthropic } from '../support/fake-anthropic.js';
import { useHarness } from '../support/harness.js';
import { createRun, expectStatus, seedWorkspace, type Seed } from '../support/seed.js';
import { createProvider, gateClient, proxyLimits, smallRequest } from './support.js';

// An API of its own, whose statements may wait long on a row: the burst's admissions hold their
// connections for as long as the test holds the row, and no other file's requests share them.
const h = useHarness({
  api: {
    modelProxy: proxyLimits({ concurrentPerRun: 64 }),
    postgresBounds: { connectMs: 3_000, statementMs: 60_000, queryMs: 65_000 },
  },
});
let fake: FakeAnthropic;

beforeAll(async () => {
  fake = await startFakeAnthropic();
});
afterAll(async () => {
  await fake.close();
});

/** The API's pool (src/store/pool.ts's default). */
const apiConnections = 20;

/** A message request, sent again after a 503 or 429 (the gate busy), as a runner's SDK does. */
async function answered(sessionToken: string, model: string): Promise<void> {
  const client = gateClient(h.api, sessionToken);
  for (let attempt = 1; ; attempt += 1) {
    try {
      await client.messages.create({ ...smallRequest(100), model } as never);
      return;
    } catch (err) {
      const status = (err as { status?: number }).status;
      if ((status !== 503 && status !== 429) || attempt >= 100) throw err;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

async function runWithProvider(seed: Seed) {
  const provider = await createProvider(h.api, seed, fake.url);
  return createRun(h.api, seed, { model_provider: provider.id });
}

/** How many backends wait, directly or behind another waiter, on the backend `holder`. */
async function waitingOn(holder: number): Promise<number> {
  const { rows } = await h.db.query<{ n: number }>(
    `with recursive waiting (pid) as (
       select pid from pg_stat_activity where $1 = any(pg_blocking_pids(pid))
       union
       select a.pid from pg_stat_activity a join waiting w on w.pid = any(pg_blocking_pids(a.pid))
     ) select count(*)::int as n from waiting`,
    [holder],
  );
  return rows[0]!.n;
}

async function heldReservations(sessionId: string): Promise<number> {
  const { rows } = await h.db.query<{ n: number }>(
    `select count(*)::int as n from model_reservations where session_id = $1 and status = 'held'`,
    [sessionId],
  );
  return rows[0]!.n;
}

async function until(what: string, condition: () => Promise<boolean>, ms = 30_000) {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

test("every connection of the API's pool waiting on another workspace's level: a request answered meanwhile settles and is answered at once", async () => {
  // The answered request: one run in the harness's workspace, no level above it.
  const settling = await runWithProvider(h.seed);
  // The burst: three runs of another workspace with a workspace-wide budget, so that each
  // admission locks that budget's row.
  const other = await seedWorkspace(h.api);
  const budget = await expectStatus<{ id: string }>(
    h.api.call('POST', '/v1/budgets', {
      token: h.api.operatorKey,
      body: { workspace: other.workspace, level: 'workspace', period: 'life', max_usd: '1000' },
    }),
    201,
  );
  const burstRuns = [
    await runWithProvider(other),
    await runWithProvider(other),
    await runWithProvider(other),
  ];

  let upstreamMayAnswer: () => void = () => undefined;
  const mayAnswer = new Promise<void>((resolve) => {
    upstreamMayAnswer = resolve;
  });
  fake.setScript((request) =>
    request.body?.model === 'claude-opus-4-1'
      ? { ...text('settled'), waitFor: mayAnswer }
      : text('burst'),
  );
  const settled = answered(settling.session_token, 'claude-opus-4-1');
  await until(
    'the request admitted',
    async () => (await heldReservations(settling.session_id)) === 1,
  );

  // Another session holds the budget's row: the burst's admissions wait on it, one connection
  // of the API's pool each, and the rest wait for a connection.
  const holder = await h.db.connect();
  let burst: Promise<unknown> | undefined;
  try {
    await holder.query('begin');
    await holder.query(
      `insert into spend_budget_windows (budget_id, window_start)
       select id, spend_window_start(period, now()) from spend_budgets where id = $1
       on conflict do nothing`,
      [budget.id],
    );
    await holder.query(`select 1 from spend_budget_windows where budget_id = $1 for update`, [
      budget.id,
    ]);
    const holderPid = (await holder.query<{ pid: number }>('select pg_backend_pid() as pid'))
      .rows[0]!.pid;
    burst = Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        answered(burstRuns[i % 3]!.session_token, 'claude-haiku-4-5'),
      ),
    );
    // Awaited below once the row is free; a failure before then is the test's, not unhandled.
    burst.catch(() => undefined);
    await until(
      "every connection of the API's pool waiting on the row",
      async () => (await waitingOn(holderPid)) >= apiConnections,
    );

    // The answer arrives: its settlement, and the client's answer, do not wait for the row.
    upstreamMayAnswer();
    const started = Date.now();
    await settled;
    const tookMs = Date.now() - started;
    assert.equal(await heldReservations(settling.session_id), 0);
    assert.ok(
      (await waitingOn(holderPid)) >= apiConnections,
      "the API's pool was still held when the request settled",
    );
    assert.ok(tookMs < 15_000, `settled ${tookMs} ms after its answer`);
  } finally {
    await holder.query('rollback').catch(() => undefined);
    holder.release();
  }
  // Once the row is free, the burst is admitted and answered.
  await burst;
  for (const run of burstRuns) assert.equal(await heldReservations(run.session_id), 0);
});
