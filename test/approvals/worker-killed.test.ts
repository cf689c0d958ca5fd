import { randomUUID } from 'node:crypto';
import { test } from 'vitest';
import { startTestApi } from '../support/api.js';
import { startWorkerProcess } from '../support/worker-processes.js';
import {
  assertEveryRunnerGetsItsDecision,
  assertEveryWorkflowEndsWith,
  decideAll,
  openApprovals,
} from './pending-approvals.js';
import { useStorePool } from '../support/store-pool.js';

const db = useStorePool(10);

// Bounds only the catastrophic: 100 calls through a kill and a restart on a loaded 2-core machine.
test(
  'the worker killed while 100 approvals are pending, all decided while it is down: every runner gets its decision, nothing duplicates',
  { timeout: 420_000 },
  async () => {
    const taskQueue = `restart-approvals-${randomUUID()}`;
    // No worker in the API: the workflows live on the worker process that is killed.
    const api = await startTestApi({
      temporal: { taskQueue },
      approvalRecheckS: 2,
      eagerStart: false,
    });
    let worker = await startWorkerProcess('worker-1', { GATE_TASK_QUEUE: taskQueue });
    try {
      const { seed, calls } = await openApprovals(api, 100);
      worker.child.kill('SIGKILL');
      await worker.exited;
      const expected = await decideAll(api, seed.admin.token, calls);
      worker = await startWorkerProcess('worker-2', { GATE_TASK_QUEUE: taskQueue });
      await assertEveryRunnerGetsItsDecision(api, db.pool, calls, expected);
      // The workflows themselves closed with the row's decision.
      await assertEveryWorkflowEndsWith(calls, expected);
    } finally {
      await worker.stop();
      await api.close();
    }
  },
);
