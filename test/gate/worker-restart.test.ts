import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, test } from 'vitest';
import type { Client } from '@temporalio/client';
import pg from 'pg';
import { asSessionId, asToolCallId, gateWorkflowId } from '../../src/domain/gate/ids.js';
import { startTestApi, type TestApi } from '../support/api.js';
import type { Faults } from '../support/fault-worker.js';
import { startWorkerProcess } from '../support/worker-processes.js';
import { testConfig } from '../support/env.js';
import { testTemporalClient } from '../support/temporal.js';
import { createRun, seedWorkspace, toolCall } from '../support/seed.js';

const taskQueue = `restart-${randomUUID()}`;
let api: TestApi;
let temporal: Client;
let db: pg.Pool;

beforeAll(async () => {
  api = await startTestApi({ temporal: { taskQueue } }, { gateWaitMs: 90_000 });
  temporal = testTemporalClient();
  db = new pg.Pool({ connectionString: testConfig().databaseUrl });
});
afterAll(async () => {
  await api.close();
  await temporal.connection.close();
  await db.end();
});

function startWorker(name: string, faults: Faults = {}) {
  return startWorkerProcess(name, { GATE_TASK_QUEUE: taskQueue }, { faults });
}

async function until<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

test('a worker killed after the workflow started and before it answered: the retried PUT gets exactly one decision, from one workflow', async () => {
  const seed = await seedWorkspace(api);
  const run = await createRun(api, seed);
  const body = { tool: 'Read', arguments: { file_path: 'README.md' } };
  const workflowId = gateWorkflowId(asSessionId(run.session_id), asToolCallId('c1'));

  // Worker A stalls inside the activity that runs the stages and records their decision, so the
  // workflow has started and not answered.
  const workerA = await startWorker('worker-a', { delayMs: { decide: 600_000 } });
  const firstPut = toolCall(api, run, 'c1', body);
  // The cheap stages are local activities: they leave no pending activity to see, so wait for
  // worker A to have started the workflow task that runs them, and let it reach the stall.
  await until('worker A to start the first workflow task', async () => {
    const history = await temporal.workflow.getHandle(workflowId).fetchHistory();
    return history.events?.some((e) => e.workflowTaskStartedEventAttributes) ? true : undefined;
  });
  await new Promise((r) => setTimeout(r, 500));
  const before = await db.query('select status from tool_calls where session_id = $1', [
    run.session_id,
  ]);
  assert.equal(before.rows[0].status, 'evaluating');
  workerA.child.kill('SIGKILL');
  await workerA.exited;

  const workerB = await startWorker('worker-b');
  try {
    const [first, retried] = await Promise.all([firstPut, toolCall(api, run, 'c1', body)]);
    assert.equal(first.status, 200);
    assert.equal(retried.status, 200);
    assert.equal(first.body.decision, 'allow');
    assert.deepEqual(retried.body, first.body);
    const again = await toolCall(api, run, 'c1', body);
    assert.deepEqual(again.body, first.body);

    const executions = [];
    for await (const execution of temporal.workflow.list({
      query: `WorkflowId = '${workflowId}'`,
    })) {
      executions.push(execution);
    }
    assert.equal(executions.length, 1);
    const events = await db.query<{ type: string }>(
      'select type from ledger_events where stream_id = $1 order by seq',
      [run.session_id],
    );
    assert.deepEqual(
      events.rows.map((e) => e.type),
      ['run.created', 'tool.requested', 'tool.decision'],
    );
  } finally {
    await workerB.stop();
  }
});
