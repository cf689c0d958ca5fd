/**
 * A call whose workflow task keeps failing (a broken worker build, or a worker too slow on a
 * loaded machine) is still evaluating to its runner: every PUT is a 503 to send again, never a
 * 500, also once Temporal refuses the update outright because the workflow's task is failing.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { setTimeout as sleep } from 'node:timers/promises';
import { bundleWorkflowCode, NativeConnection, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, test } from 'vitest';
import { asSessionId, asToolCallId, gateWorkflowId } from '../../src/domain/gate/ids.js';
import { startTestApi, type TestApi } from '../support/api.js';
import { testConfig } from '../support/env.js';
import { createRun, seedWorkspace, toolCall } from '../support/seed.js';
import { testTemporalClient } from '../support/temporal.js';

const taskQueue = `failing-workflow-task-${randomUUID()}`;
let api: TestApi;
let worker: Worker;
let running: Promise<void>;
let connection: NativeConnection;

beforeAll(async () => {
  api = await startTestApi({ temporal: { taskQueue } }, { gateWaitMs: 1500 });
  const config = testConfig();
  connection = await NativeConnection.connect({ address: config.temporal.address });
  const workflowBundle = await bundleWorkflowCode({
    workflowsPath: createRequire(import.meta.url).resolve('../support/failing-gate-workflow.ts'),
    logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} },
  });
  worker = await Worker.create({
    connection,
    namespace: config.temporal.namespace,
    taskQueue,
    workflowBundle,
  });
  running = worker.run();
}, 120_000);
afterAll(async () => {
  worker.shutdown();
  await running;
  await connection.close();
  await api.close();
});

test('every PUT of a call whose workflow task keeps failing is a 503 to send again, also once Temporal refuses its update', async () => {
  const seed = await seedWorkspace(api);
  const run = await createRun(api, seed);
  const send = () =>
    toolCall(api, run, 'stuck', { tool: 'Read', arguments: { file_path: '/tmp/x' } });
  const client = testTemporalClient();
  const handle = client.workflow.getHandle(
    gateWorkflowId(asSessionId(run.session_id), asToolCallId('stuck')),
  );
  const answers: number[] = [];
  let attempt = 0;
  try {
    // Temporal refuses updates once the workflow task has failed a few times over.
    const deadline = Date.now() + 60_000;
    while (attempt < 4) {
      assert.ok(Date.now() < deadline, `the workflow task failed ${attempt} times within a minute`);
      const answer = await send();
      answers.push(answer.status);
      assert.equal(answer.status, 503, JSON.stringify(answer.body));
      assert.ok(answer.headers.get('retry-after'));
      attempt = (await handle.describe()).raw.pendingWorkflowTask?.attempt ?? 0;
      await sleep(250);
    }
    // Sent again while Temporal refuses the update: still a 503.
    const refused = await send();
    answers.push(refused.status);
    assert.equal(refused.status, 503, JSON.stringify(refused.body));
  } finally {
    await handle.terminate('the test is over').catch(() => undefined);
    await client.connection.close();
  }
  process.stdout.write(
    `answers while the workflow task failed ${attempt} times: ${answers.join(' ')}\n`,
  );
}, 120_000);
