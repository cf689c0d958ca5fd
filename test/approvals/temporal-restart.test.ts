import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'vitest';
import { approvalDecidedSignal } from '../../src/workflows/messages.js';
import { startTestApi } from '../support/api.js';
import { within } from '../support/bounds.js';
import { ownTemporalServer, testTemporalClient, waitsOf } from '../support/temporal.js';
import { startWorkerProcess } from '../support/worker-processes.js';
import {
  assertEveryRunnerGetsItsDecision,
  assertEveryWorkflowEndsWith,
  decideAll,
  openApprovals,
} from './pending-approvals.js';
import { useStorePool } from '../support/store-pool.js';

const db = useStorePool(10);

/** The workflows' re-check: ten minutes, so none can fire within the test's bound below. */
const recheckS = 600;
/** How long the workflows get to end once Temporal is back: the wake-ups are re-sent within a minute. */
const endingBoundMs = 120_000;

test(
  'the Temporal server restarted (SQLite file kept) while approvals are pending, all decided while it is down: every runner gets its decision at once, every workflow ends with it once Temporal is back (the wake-up signals sent again, long before any re-check), nothing duplicates',
  { timeout: 300_000 },
  async () => {
    const server = await ownTemporalServer();
    const { address } = server;
    // The re-check is far away: only the wake-up signals, sent again, can end the workflows.
    const api = await startTestApi({ temporal: { address }, approvalRecheckS: recheckS });
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
      await within(
        endingBoundMs,
        'the workflows ending once Temporal is back',
        assertEveryWorkflowEndsWith(calls, expected, { address }),
      );
      // What ended each one, as its history holds it: a wake-up signal, no re-check timer.
      const client = testTemporalClient({ address });
      try {
        for (const { run, id } of calls) {
          const waits = await waitsOf(client, `gate/${run.session_id}/${id}`);
          assert.ok(
            waits.signals.includes(approvalDecidedSignal.name),
            `${id}: ${waits.signals.join(', ')}`,
          );
          assert.equal(waits.fired, 0, `${id}: a re-check timer fired`);
          assert.ok(
            waits.timersMs.every((ms) => ms > endingBoundMs * 4),
            `${id}: ${waits.timersMs.join(', ')} ms`,
          );
        }
      } finally {
        await client.connection.close();
      }
    } finally {
      await worker.stop();
      await api.close();
      await server.close();
    }
  },
);
