import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'vitest';
import { startTestApi } from '../support/api.js';
import { ownTemporalServer } from '../support/temporal.js';
import { startWorkerProcess } from '../support/worker-processes.js';
import {
  assertEveryRunnerGetsItsDecision,
  assertEveryWorkflowEndsWith,
  decideAll,
  openApprovals,
} from './pending-approvals.js';
import { useStorePool } from '../support/store-pool.js';

const db = useStorePool(10);

test('the Temporal server restarted (SQLite file kept) while approvals are pending, all decided while it is down: every runner gets its decision at once, every workflow ends with it once Temporal is back (the wake-up signals sent again, long before any re-check), nothing duplicates', async () => {
  const server = await ownTemporalServer();
  const { address } = server;
  // The re-check is far away: only the wake-up signals, sent again, can end the workflows.
  const api = await startTestApi({ temporal: { address }, approvalRecheckS: 600 });
  let worker = await startWorkerProcess('worker-t1', { TEMPORAL_ADDRESS: address });
  try {
    const { seed, calls } = await openApprovals(api, 20);
    await server.stop('SIGTERM', 15_000);
    await worker.stop('SIGKILL');
    const expected = await decideAll(api, seed.admin.token, calls);
    await assertEveryRunnerGetsItsDecision(api, db.pool, calls, expected);
    // Down for longer than one wake-up signal may take (5 s): the first try of each has failed.
    await sleep(7_000);
    await server.restart();
    worker = await startWorkerProcess('worker-t2', { TEMPORAL_ADDRESS: address });
    await assertEveryWorkflowEndsWith(calls, expected, { address });
  } finally {
    await worker.stop();
    await api.close();
    await server.close();
  }
});
