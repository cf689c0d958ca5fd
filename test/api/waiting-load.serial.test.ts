/**
 * Waiting is cheap: one runner holding 2,000 `?wait=60` requests and 500 ledger streams open
 * costs other callers nothing they notice, and the API's PostgreSQL connections stay within its
 * pool. Serial: its load beside the outage files stretched their timing past what they hold
 * (a call held 6 s in its stage was decided before PostgreSQL went), and among the other files,
 * with two suites side by side, decisions under its load took 10 s (p50) where they took 264 ms
 * just before; its time bound is the catastrophic one (a poll per waiter would take the pool and
 * the CPU).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, test } from 'vitest';
import pg from 'pg';
import { callerLimits } from '../../src/api/caller-slots.js';
import { startTestApi, type TestApi } from '../support/api.js';
import { testConfig } from '../support/env.js';
import {
  createRun,
  defaultPolicy,
  expectStatus,
  seedWorkspace,
  toolCall,
  type CreatedRun,
  type Seed,
} from '../support/seed.js';

const appName = `wait-load-${randomUUID().slice(0, 8)}`;
const poolSize = 20;
const pendingCalls = 10;

let api: TestApi;
let seed: Seed;
let db: pg.Pool;
// Every wait and stream this file opens, ended after it: a signal each (one shared signal
// would carry thousands of listeners, which Node reports as a leak).
const opened: AbortController[] = [];
const openedSignal = () => {
  const abort = new AbortController();
  opened.push(abort);
  return abort.signal;
};

beforeAll(async () => {
  const url = new URL(testConfig().databaseUrl);
  url.searchParams.set('application_name', appName);
  // No worker inside this API: its PostgreSQL connections are then the API's pool and its LISTEN
  // connection alone, which is what the test counts.
  api = await startTestApi({ databaseUrl: url.toString(), eagerStart: false });
  seed = await seedWorkspace(api, {
    ...defaultPolicy,
    name: 'ask-for-bash',
    rules: [
      { id: 'reads', match: { effect: 'read' }, verdict: 'allow' },
      { id: 'ask', match: { tool: 'Bash' }, verdict: 'require_approval' },
    ],
  });
  db = new pg.Pool({ connectionString: testConfig().databaseUrl, max: 2 });
});
afterAll(async () => {
  for (const abort of opened) abort.abort();
  await api.close();
  await db.end();
});

/** Milliseconds for each of `count` decisions of another runner, one after the other. */
async function decisionTimes(run: CreatedRun, count: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const started = performance.now();
    const answer = await expectStatus(
      toolCall(api, run, randomUUID(), { tool: 'Read', arguments: { file_path: `f${i}` } }),
      200,
    );
    assert.equal(answer.decision, 'allow');
    times.push(performance.now() - started);
  }
  return times;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1] ?? 0;

/** Sends `probe` until it answers 429 (every slot of the caller is held), for at most 60 s. */
async function untilCapped(probe: () => Promise<Response>): Promise<Response> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const response = await probe();
    if (response.status === 429 || Date.now() > deadline) return response;
    await response.body?.cancel();
  }
}

/** Until the API's server holds `count` connections or more (accepted, not in the backlog). */
async function untilConnections(count: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const open = await new Promise<number>((resolve, reject) => {
      api.app.server.getConnections((error, n) => {
        if (error) reject(error);
        else resolve(n);
      });
    });
    if (open >= count) return;
    assert.ok(Date.now() < deadline, `the API took ${open} of ${count} connections`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function apiConnections() {
  const { rows } = await db.query<{ total: number; active: number }>(
    `select count(*)::int as total, count(*) filter (where state = 'active')::int as active
     from pg_stat_activity where application_name = $1`,
    [appName],
  );
  return rows[0] ?? { total: 0, active: 0 };
}

describe('waiting is cheap', { timeout: 180_000 }, () => {
  test('2,000 waits and 500 streams of one runner: others decide in their usual time, within the pool, and every waiter is answered', async (t) => {
    const other = await createRun(api, seed);
    await decisionTimes(other, 3); // warm up: workflow code, caches
    const quiet = await decisionTimes(other, 5);

    const loud = await createRun(api, seed);
    const auth = { authorization: `Bearer ${loud.session_token}` };
    const ids = Array.from({ length: pendingCalls }, () => randomUUID());
    for (const id of ids)
      await expectStatus(
        toolCall(api, loud, id, { tool: 'Bash', arguments: { command: id } }),
        202,
      );

    const waitUrl = (id: string, s = 60) =>
      `${api.url}/v1/sessions/${loud.session_id}/tool-calls/${id}?wait=${s}`;
    // Sent in bursts of 100, each once the API has taken the one before: the listen backlog
    // never overflows (a connection it drops is sent again by TCP seconds later, and the first
    // waits could end before the last arrive).
    const waits: Promise<Response>[] = [];
    for (let i = 0; i < callerLimits.waits; i += 1) {
      if (i % 100 === 0) await untilConnections(i);
      const id = ids[i % ids.length] as string;
      waits.push(fetch(waitUrl(id), { headers: auth, signal: openedSignal() }));
    }
    await untilConnections(callerLimits.waits);
    const streamUrl = `${api.url}/v1/sessions/${loud.session_id}/events/stream`;
    const streams = await Promise.all(
      Array.from({ length: callerLimits.streams }, () =>
        fetch(streamUrl, { headers: auth, signal: openedSignal() }),
      ),
    );
    for (const stream of streams) assert.equal(stream.status, 200);

    // One more of either is a 429 problem: the runner holds every slot it may.
    const extraStream = await fetch(streamUrl, { headers: auth });
    assert.equal(extraStream.status, 429);
    assert.match(extraStream.headers.get('content-type') ?? '', /problem\+json/);
    const extraWait = await untilCapped(() =>
      fetch(waitUrl(ids[0] as string, 1), { headers: auth }),
    );
    assert.equal(extraWait.status, 429, 'the 2,001st wait');

    const busy = await decisionTimes(other, 5);
    const connections = await apiConnections();
    await t.annotate(
      `decision p50 ${median(quiet).toFixed(0)} ms quiet, ${median(busy).toFixed(0)} ms under load; API connections ${connections.total} (${connections.active} active)`,
    );
    // Only the catastrophic is bounded: a poll per waiter would take the pool and the CPU.
    assert.ok(median(busy) < median(quiet) * 4 + 1_000, 'decisions slowed down badly');
    assert.ok(connections.total <= poolSize + 1, `${connections.total} connections`);

    // Deciding every pending call answers every waiter, woken by the notices.
    const started = Date.now();
    for (const id of ids)
      await expectStatus(
        api.call('POST', `/v1/approvals/${loud.session_id}/${id}/decision`, {
          token: seed.admin.token,
          body: { decision: 'deny' },
        }),
        200,
      );
    const answers = await Promise.all(waits);
    const statuses = new Set(answers.map((a) => a.status));
    assert.deepEqual([...statuses], [200]);
    await t.annotate(
      `all ${answers.length} waiters answered ${Date.now() - started} ms after the decisions began`,
    );
    assert.ok(Date.now() - started < 30_000);
    await Promise.all(answers.map((a) => a.text()));

    // A stream reads the decisions too.
    const reader = (streams[0] as Response).body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    while (!text.includes('event: approval.decided')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
    }
    assert.ok(text.includes('event: approval.decided'));
  });
});
