/**
 * PostgreSQL away under load, for the files that act it out: a cluster of the file's own (the
 * APIs, the worker and the file's pool on it), so the run's shared one stays up. Each file acts
 * out one outage, so the files run beside each other (vitest.config.ts: `outage`).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll } from 'vitest';
import type { ManagedProcess } from '../../tools/devstack/child-process.js';
import type { Pool } from '../../src/store/pool.js';
import { startTestApi, type TestApi } from './api.js';
import { ownPostgresCluster, type OwnPostgres } from './own-postgres.js';
import {
  quietHostedWorkers,
  readCalls,
  rideOut,
  type LoadCall,
  type Outage,
  type TimedAnswer,
} from './outage-load.js';
import { seedWorkspace, type Seed } from './seed.js';
import { startWorkerProcess } from './worker-processes.js';

/** How long the worker process holds a call's first stage attempt back: it is in flight. */
const stageDelayMs = 1500;
/** The short window of one API: an outage outlasts it. */
const shortWindowS = 3;

/**
 * Three APIs on the file's own cluster: one hosting its worker and starting calls eagerly on it
 * (the default), one whose calls run on a worker process that holds their first stage attempt
 * back (in flight when PostgreSQL goes), and one like it with a short window. Started before the
 * file's tests, stopped after them.
 */
export function usePostgresOutageStack() {
  let postgres: OwnPostgres;
  let pool: Pool;
  let eager: TestApi;
  let held: TestApi;
  let shortWindow: TestApi;
  let worker: ManagedProcess;
  let seeds: { eager: Seed; held: Seed };

  beforeAll(async () => {
    quietHostedWorkers();
    postgres = await ownPostgresCluster();
    pool = postgres.pool(10);
    const databaseUrl = postgres.url;
    const heldQueue = `pg-outage-${randomUUID()}`;
    [eager, held, shortWindow, worker] = await Promise.all([
      startTestApi({
        databaseUrl,
        temporal: { taskQueue: `pg-outage-eager-${randomUUID()}` },
        eagerStart: true,
      }),
      startTestApi({ databaseUrl, temporal: { taskQueue: heldQueue } }),
      startTestApi({
        databaseUrl,
        temporal: { taskQueue: heldQueue },
        unavailableWindowS: shortWindowS,
      }),
      startWorkerProcess(
        'worker-pg-outage',
        { GATE_TASK_QUEUE: heldQueue, DATABASE_URL: databaseUrl },
        { faults: { delayMs: { decide: stageDelayMs } } },
      ),
    ]);
    seeds = { eager: await seedWorkspace(eager), held: await seedWorkspace(held) };
  });
  afterAll(async () => {
    await worker.stop();
    await Promise.all([eager.close(), held.close(), shortWindow.close()]);
    await pool.end();
    await postgres.close();
  });

  /** Until every call has its record (the gate has it in flight), for at most 10 s. */
  async function untilRecorded(calls: LoadCall[]): Promise<void> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const { rows } = await pool.query<{ n: number }>(
        `select count(*)::int as n from tool_calls
          where (session_id, tool_call_id) in (select * from unnest($1::text[], $2::text[]))
            and status = 'evaluating'`,
        [calls.map((c) => c.run.session_id), calls.map((c) => c.id)],
      );
      if (rows[0]!.n === calls.length) return;
      assert.ok(Date.now() < deadline, `only ${rows[0]!.n} of ${calls.length} calls in flight`);
      await sleep(50);
    }
  }

  /**
   * Fifty calls in flight and ten approvals pending when PostgreSQL goes away for `outageMs` (see
   * `rideOut`); once it is back every call is decided on its merits: the reads allowed, the short
   * window's failed closed as the gate's unavailability.
   */
  async function rideOutPostgres(outage: Pick<Outage, 'begin' | 'end'>) {
    const answers: TimedAnswer[] = [];
    const [eagerCalls, heldCalls, windowCalls] = await Promise.all([
      readCalls(eager, seeds.eager, 25, 'e', answers),
      readCalls(held, seeds.held, 20, 'h', answers),
      readCalls(shortWindow, seeds.held, 5, 'w', answers),
    ]);
    const calls = [...eagerCalls, ...heldCalls, ...windowCalls];
    const { finals } = await rideOut(
      { calls, approvalsApi: eager, answers, workers: [worker], db: pool },
      { ...outage, inFlight: () => untilRecorded([...heldCalls, ...windowCalls]) },
    );
    finals.forEach((answer, n) => {
      const call = calls[n]!;
      assert.equal(answer.status, 200, `${call.id}: ${JSON.stringify(answer.body)}`);
      if (windowCalls.includes(call)) {
        assert.equal(answer.body.decision, 'deny');
        assert.equal(answer.body.source, 'unavailable');
        assert.match(answer.body.reason, /^the gate was unavailable: /);
      } else {
        assert.equal(answer.body.decision, 'allow', `${call.id}: ${JSON.stringify(answer.body)}`);
      }
    });
  }

  return { postgres: () => postgres, rideOutPostgres };
}
