/**
 * What the outage tests hold open while a dependency is away, and what they check once it is
 * back: runners whose calls are in flight, sending them again on every 503 as the GateClient does
 * (each answer timed), and afterwards one tool.decision a call and ledgers that verify.
 */
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import type pg from 'pg';
import type { ManagedProcess } from '../../tools/devstack/child-process.js';
import {
  assertEveryRunnerGetsItsDecision,
  decideAll,
  openApprovals,
} from '../approvals/pending-approvals.js';
import type { ApiCaller, HttpAnswer } from './api.js';
import { createRun, type CreatedRun, type Seed } from './seed.js';

/**
 * How long each outage lasts, in seconds: 25 by default, what a failover or a redeploy takes;
 * longer than every bound of one request (PostgreSQL's 5 s query timeout, a Temporal call's 5 s)
 * and than the short window a test configures (3 s), well inside the default window (45 s).
 * `GATE_TEST_OUTAGE_S` sets it, at least the answer bound's 20 s and 5 s more (below).
 */
export const outageMs = Number(process.env.GATE_TEST_OUTAGE_S ?? 25) * 1000;

/**
 * No answer, during an outage or not, takes longer than this: well under the outage's length, so
 * an answer that waits the outage out fails, and well over what one request's own bounds add up
 * to (a connection's 3 s and a query's 5 s), for a machine that runs another suite beside this:
 * with two suites side by side on two cores the slowest answer came at 14.7 s and at 18.1 s
 * (a frozen PostgreSQL, a call in flight on a worker process), when it was 15 s.
 */
export const answerBoundMs = 20_000;
if (outageMs < answerBoundMs + 5_000) {
  throw new Error(
    `GATE_TEST_OUTAGE_S must leave the outage 5 s longer than the ${String(answerBoundMs / 1000)} s answer bound, or an answer that waits it out passes`,
  );
}

/**
 * The workers the APIs host in this process log only errors: while a dependency is away their
 * activities fail by the hundred, on purpose.
 */
export function quietHostedWorkers(): void {
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
  } catch {
    // a runtime is up in this process already, from a file that ran before in it
  }
}

/** One answer the API gave, timed from the request. */
export interface TimedAnswer {
  what: string;
  status: number;
  ms: number;
  retryAfter: string | null;
  body: unknown;
}

/** `api`, with every answer it gives timed into `answers`. */
export function timed<T extends ApiCaller>(api: T, answers: TimedAnswer[]): T {
  const call: ApiCaller['call'] = async (method, path, options) => {
    const started = performance.now();
    const answer = await api.call(method, path, options);
    answers.push({
      what: `${method} ${path}`,
      status: answer.status,
      ms: performance.now() - started,
      retryAfter: answer.headers.get('retry-after'),
      body: answer.body,
    });
    return answer;
  };
  return { ...api, call };
}

/** A runner's call: the API it asks, its run and id, and what it asks. */
export interface LoadCall {
  api: ApiCaller;
  run: CreatedRun;
  id: string;
  body: { tool: string; arguments: Record<string, unknown> };
}

/**
 * `count` reads the default policy allows, on runs of `seed`'s workspace, five calls a run; each
 * answer to them timed into `answers`.
 */
export async function readCalls(
  api: ApiCaller,
  seed: Seed,
  count: number,
  prefix: string,
  answers: TimedAnswer[],
): Promise<LoadCall[]> {
  const perRun = 5;
  const runs = await Promise.all(
    Array.from({ length: Math.ceil(count / perRun) }, () => createRun(api, seed)),
  );
  const runner = timed(api, answers);
  return Array.from({ length: count }, (_, n) => ({
    api: runner,
    run: runs[Math.floor(n / perRun)]!,
    id: `${prefix}${n}`,
    body: { tool: 'Read', arguments: { file_path: `file-${n}` } },
  }));
}

/**
 * Sends the call as a runner does: again after each 503 (a quarter of a second later), until it
 * is answered otherwise, for at most two minutes.
 */
export async function sendAsRunner(call: LoadCall): Promise<HttpAnswer> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const answer = await call.api.call(
      'PUT',
      `/v1/sessions/${call.run.session_id}/tool-calls/${call.id}`,
      { token: call.run.session_token, body: call.body },
    );
    if (answer.status !== 503 || Date.now() > deadline) return answer;
    await sleep(250);
  }
}

/**
 * Every answer was a decision, a pending approval or a 503 with Retry-After, within the bound;
 * and the outage was felt (some 503s).
 */
export function assertAnsweredWithinBound(answers: TimedAnswer[]): void {
  const slowest = answers.reduce((most, answer) => Math.max(most, answer.ms), 0);
  process.stdout.write(
    `${String(answers.length)} answers during the outage, the slowest in ${slowest.toFixed(0)} ms (bound ${String(answerBoundMs)} ms)\n`,
  );
  for (const answer of answers) {
    assert.ok(
      [200, 202, 503].includes(answer.status),
      `${answer.what}: ${answer.status} ${JSON.stringify(answer.body)}`,
    );
    assert.ok(answer.ms < answerBoundMs, `${answer.what}: answered after ${answer.ms} ms`);
    if (answer.status === 503) assert.ok(answer.retryAfter, `${answer.what}: no Retry-After`);
  }
  assert.ok(
    answers.some((a) => a.status === 503),
    'no runner was ever told 503: the outage missed the calls',
  );
}

/** Each call has exactly one tool.decision, and every session's ledger verifies. */
export async function assertDecidedOnceAndVerified(
  api: ApiCaller,
  db: pg.Pool,
  calls: LoadCall[],
): Promise<void> {
  const sessions = [...new Set(calls.map((c) => c.run.session_id))];
  const { rows } = await db.query<{ stream_id: string; tool_call_id: string; n: number }>(
    `select stream_id, data->>'tool_call_id' as tool_call_id, count(*)::int as n
       from ledger_events where stream_id = any($1) and type = 'tool.decision'
      group by 1, 2`,
    [sessions],
  );
  const decisions = new Map(rows.map((r) => [`${r.stream_id}/${r.tool_call_id}`, r.n]));
  for (const call of calls) {
    assert.equal(decisions.get(`${call.run.session_id}/${call.id}`), 1, `${call.id}: decisions`);
  }
  for (const session of sessions) {
    const verified = await api.call('GET', `/v1/sessions/${session}/events/verify`, {
      token: api.operatorKey,
    });
    assert.equal(verified.status, 200);
    assert.equal(verified.body.ok, true, JSON.stringify(verified.body));
  }
}

/** A dependency going away and coming back, as a test acts it out. */
export interface Outage {
  /** Once the runners are sending, until the calls are where the test wants them. */
  inFlight(): Promise<void>;
  /** Once the last calls are sent, until they are where the test wants them. */
  lastInFlight?(): Promise<void>;
  begin(): Promise<void>;
  end(): Promise<void>;
}

/** What an outage acts on: the calls, the approvals' API, the processes that must live on. */
export interface OutageLoad {
  /** In flight when the dependency goes. */
  calls: LoadCall[];
  /**
   * In flight too, sent once `calls` are and right before the dependency goes: the calls whose
   * hold must outlast only their own recording and the outage's start, however loaded the machine.
   */
  last?: LoadCall[];
  /** First sent while it is away. */
  late?: LoadCall[];
  /** Where ten approvals are opened, then decided while it is away. */
  approvalsApi: ApiCaller;
  /** Every answer the runners and approvers get, timed (see `readCalls`). */
  answers: TimedAnswer[];
  workers: ManagedProcess[];
  db: pg.Pool;
}

/**
 * Ten approvals pending and the calls in flight when `outage` begins; approvers decide meanwhile;
 * `outageMs` later it ends. Then: no worker exited, every answer was a decision or a 503 within
 * the bound, every call sent again answers as it was answered, one tool.decision a call, every
 * ledger verifies, the approvals decided. Returns each call's final answer (`calls`, `last`, then
 * `late`), for the test to judge on its merits, and the approvals with their decisions.
 */
export async function rideOut(load: OutageLoad, outage: Outage) {
  const { calls, last = [], late = [], approvalsApi, answers, workers, db } = load;
  const approvals = await openApprovals(approvalsApi, 10);
  const runners = calls.map((call) => sendAsRunner(call));
  await outage.inFlight();
  runners.push(...last.map((call) => sendAsRunner(call)));
  await outage.lastInFlight?.();

  await outage.begin();
  runners.push(...late.map((call) => sendAsRunner(call)));
  const approver = timed(approvalsApi, answers);
  const decided = decideAll(approver, approvals.seed.admin.token, approvals.calls);
  await sleep(outageMs);
  await outage.end();

  const finals = await Promise.all(runners);
  const expected = await decided;
  for (const worker of workers) {
    assert.equal(worker.child.exitCode, null, `${worker.name} exited`);
    assert.equal(worker.child.signalCode, null, `${worker.name} was killed`);
  }
  assertAnsweredWithinBound(answers);
  const all = [...calls, ...last, ...late];
  const again = await Promise.all(all.map((call) => sendAsRunner(call)));
  again.forEach((answer, n) => {
    assert.deepEqual(answer.body, finals[n]!.body, `${all[n]!.id} sent again`);
  });
  await assertDecidedOnceAndVerified(approvalsApi, db, all);
  await assertEveryRunnerGetsItsDecision(approvalsApi, db, approvals.calls, expected);
  return { finals, approvals: approvals.calls, expected };
}
