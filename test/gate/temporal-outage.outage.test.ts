/**
 * The Temporal frontend away under load: a dev server of this file's own (its SQLite file kept)
 * stopped while calls are in flight and approvals pending, and started again. It bounds every
 * answer in time, so it runs after the other files (vitest.config.ts: `outage`).
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, test } from 'vitest';
import type { ManagedProcess } from '../../tools/devstack/child-process.js';
import { assertEveryWorkflowEndsWith } from '../approvals/pending-approvals.js';
import { startTestApi, type TestApi } from '../support/api.js';
import {
  quietHostedWorkers,
  readCalls,
  rideOut,
  type TimedAnswer,
} from '../support/outage-load.js';
import { seedWorkspace, type Seed } from '../support/seed.js';
import { useStorePool } from '../support/store-pool.js';
import { ownTemporalServer } from '../support/temporal.js';
import { startWorkerProcess } from '../support/worker-processes.js';

const db = useStorePool(10);
let server: Awaited<ReturnType<typeof ownTemporalServer>>;
let api: TestApi;
let worker: ManagedProcess;
let seed: Seed;

beforeAll(async () => {
  quietHostedWorkers();
  server = await ownTemporalServer();
  // The API hosts a worker and starts calls eagerly on it (the default); a worker process polls
  // the same queue.
  [api, worker] = await Promise.all([
    startTestApi({ temporal: { address: server.address } }),
    startWorkerProcess('worker-temporal-outage', { TEMPORAL_ADDRESS: server.address }),
  ]);
  seed = await seedWorkspace(api);
});
afterAll(async () => {
  await worker.stop();
  await api.close();
  await server.close();
});

test('the Temporal frontend stopped under load and started again: no process exits, every answer a decision or a 503 within 20 s, no call lost, each decided once on its merits, the pending approvals decided', async () => {
  const answers: TimedAnswer[] = [];
  const calls = await readCalls(api, seed, 50, 'c', answers);
  // Forty calls in flight when the frontend goes (redeployed: SIGTERM), ten more sent while it
  // is away; approvers decide meanwhile (the row is the truth, the workflows woken once it is back).
  const { finals, approvals, expected } = await rideOut(
    {
      calls: calls.slice(0, 40),
      late: calls.slice(40),
      approvalsApi: api,
      answers,
      workers: [worker],
      db: db.pool,
    },
    {
      inFlight: () => sleep(100),
      begin: () => server.stop('SIGTERM', 15_000),
      end: () => server.restart(),
    },
  );
  finals.forEach((answer, n) => {
    assert.equal(answer.status, 200, `${calls[n]!.id}: ${JSON.stringify(answer.body)}`);
    assert.equal(answer.body.decision, 'allow', `${calls[n]!.id}: ${JSON.stringify(answer.body)}`);
  });
  // Every workflow ends, each with the decision its runner got: none lost, none started twice.
  await assertEveryWorkflowEndsWith(
    [...calls, ...approvals],
    [...calls.map(() => 'allow'), ...expected],
    { address: server.address },
  );
});
