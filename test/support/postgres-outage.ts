/**
 * What the PostgreSQL outage files share (test/gate/postgres-stopped.outage.test.ts and
 * postgres-frozen.outage.test.ts, one outage each, so the two run beside each other): a cluster
 * of the file's own (the APIs, the worker and the file's pool on it), so the run's shared one
 * stays up, the load held open while it is away, and what each call must come to once it is back.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { WorkflowNotFoundError } from '@temporalio/client';
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
import { testTemporalClient } from './temporal.js';
import { startWorkerProcess } from './worker-processes.js';

/** The file's stack, started before its test and stopped after it, and its load's ride. */
export function usePostgresOutageStack() {
  let postgres!: OwnPostgres;
  const db = {} as { pool: Pool };
  /**
   * The worker process holds every attempt of a call's stages until the outage has begun (a file
   * written then), each attempt 9 s at most (within the stage's 10 s start-to-close) and failing
   * meanwhile as PostgreSQL away. A hold of fixed length was outlasted on a loaded machine: at
   * 1.5 s the first calls were decided before the last were recorded, and at 9 s, beside another
   * suite, a short-window call was decided before a fast shutdown had stopped PostgreSQL.
   */
  const stageDelayMs = 9000;
  const scratch = mkdtempSync(path.join(tmpdir(), 'gate-pg-outage-'));
  const outageBegun = path.join(scratch, 'outage-begun');
  /** The short window of one API: longer than the hold, and the outage outlasts it. */
  const shortWindowS = 13;

  /**
   * Three APIs on the file's own cluster: one hosting its worker and starting calls eagerly on
   * it (the default), one whose calls run on a worker process that holds their first stage
   * attempt back (in flight when PostgreSQL goes), and one like it with a short window.
   */
  let eager: TestApi;
  let held: TestApi;
  let shortWindow: TestApi;
  let worker: ManagedProcess;
  let seeds: { eager: Seed; held: Seed };

  beforeAll(async () => {
    quietHostedWorkers();
    postgres = await ownPostgresCluster();
    db.pool = postgres.pool(10);
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
        { faults: { delayMs: { decide: stageDelayMs }, releasedBy: outageBegun } },
      ),
    ]);
    seeds = { eager: await seedWorkspace(eager), held: await seedWorkspace(held) };
  });
  afterAll(async () => {
    await worker.stop();
    await Promise.all([eager.close(), held.close(), shortWindow.close()]);
    await db.pool.end();
    await postgres.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  /** Until every call has its record (the gate has it in flight), for at most the stage delay. */
  async function untilRecorded(calls: LoadCall[]): Promise<void> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const { rows } = await db.pool.query<{ n: number }>(
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
   * Until every call's gate workflow has started, for at most 10 s: recorded is not started (on a
   * loaded machine the start may still be on its way to Temporal when PostgreSQL goes, and the
   * call sent again afterwards starts it then, its window counted from after the outage).
   */
  async function untilStarted(calls: LoadCall[]): Promise<void> {
    const client = testTemporalClient();
    try {
      const deadline = Date.now() + 10_000;
      for (const call of calls) {
        const handle = client.workflow.getHandle(`gate/${call.run.session_id}/${call.id}`);
        for (;;) {
          try {
            await handle.describe();
            break;
          } catch (err) {
            if (!(err instanceof WorkflowNotFoundError)) throw err;
          }
          assert.ok(Date.now() < deadline, `${call.id}: its workflow did not start within 10 s`);
          await sleep(50);
        }
      }
    } finally {
      await client.connection.close();
    }
  }

  /** Recorded, then started: in flight when PostgreSQL goes. */
  async function untilInFlight(calls: LoadCall[]): Promise<void> {
    await untilRecorded(calls);
    await untilStarted(calls);
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
    // The short window's calls go last, once the others are in flight: their hold then covers
    // only their own recording and PostgreSQL's stop (beside a suite in its busiest step, all
    // fifty at once took a window call past its hold before PostgreSQL had stopped).
    const calls = [...eagerCalls, ...heldCalls, ...windowCalls];
    const { finals } = await rideOut(
      {
        calls: [...eagerCalls, ...heldCalls],
        last: windowCalls,
        approvalsApi: eager,
        answers,
        workers: [worker],
        db: db.pool,
      },
      {
        ...outage,
        inFlight: () => untilInFlight(heldCalls),
        lastInFlight: () => untilInFlight(windowCalls),
        begin: async () => {
          await outage.begin();
          writeFileSync(outageBegun, '');
        },
      },
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

  return {
    get postgres(): OwnPostgres {
      return postgres;
    },
    rideOutPostgres,
  };
}
