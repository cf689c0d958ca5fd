/**
 * A call whose workflow task keeps failing (a broken worker build, or a worker too slow on a
 * loaded machine) is still evaluating to its runner: every PUT is a 503 to send again, never a
 * 500, also once Temporal refuses the update outright because the workflow's task is failing.
 * Past the call's window it fails closed: denied as the gate unavailable, recorded once.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { setTimeout as sleep } from 'node:timers/promises';
import { bundleWorkflowCode, NativeConnection, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, test } from 'vitest';
import { asSessionId, asToolCallId, gateWorkflowId } from '../../src/domain/gate/ids.js';
import { gateDataConverter } from '../../src/temporal/connections.js';
import { startTestApi, type TestApi } from '../support/api.js';
import { testConfig } from '../support/env.js';
import { createRun, seedWorkspace, toolCall } from '../support/seed.js';
import { testTemporalClient } from '../support/temporal.js';

const taskQueue = `failing-workflow-task-${randomUUID()}`;
/** The call's window: how long its workflow may not move before the gate fails closed. */
const windowS = 8;
let api: TestApi;
let worker: Worker;
let running: Promise<void>;
let connection: NativeConnection;

beforeAll(async () => {
  api = await startTestApi(
    { temporal: { taskQueue }, unavailableWindowS: windowS },
    { gateWaitMs: 1500 },
  );
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
    // The gate's own codec: the task reads its input, and fails in the workflow's code.
    dataConverter: gateDataConverter(config.payloadKeys),
  });
  running = worker.run();
}, 120_000);
afterAll(async () => {
  worker.shutdown();
  await running;
  await connection.close();
  await api.close();
});

test('every PUT of a call whose workflow task keeps failing is a 503 to send again, also once Temporal refuses its update; past the window the call is denied as the gate unavailable, once', async () => {
  const seed = await seedWorkspace(api);
  const run = await createRun(api, seed);
  const send = () =>
    toolCall(api, run, 'stuck', { tool: 'Read', arguments: { file_path: '/tmp/x' } });
  const client = testTemporalClient();
  const handle = client.workflow.getHandle(
    gateWorkflowId(asSessionId(run.session_id), asToolCallId('stuck')),
  );
  const answers: number[] = [];
  try {
    const started = Date.now();
    let answer = await send();
    // Sent again, as a runner does, until decided: a 503 each time while the task fails.
    while (answer.status === 503) {
      assert.ok(answer.headers.get('retry-after'));
      assert.ok(Date.now() - started < 90_000, 'decided within a minute and a half');
      answers.push(answer.status);
      await sleep(250);
      answer = await send();
    }
    answers.push(answer.status);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(answer.body.decision, 'deny');
    assert.equal(answer.body.source, 'unavailable');
    // Not before the window: until then the task may still come through.
    assert.ok(Date.now() - started > windowS * 1000, 'denied only past the window');
    // The workflow was ended by the gate, and the deny is the record's: sent again, the same.
    const described = await handle.describe();
    assert.equal(described.status.name, 'TERMINATED');
    const again = await send();
    assert.equal(again.status, 200);
    assert.deepEqual(again.body, answer.body);
  } finally {
    await handle.terminate('the test is over').catch(() => undefined);
    await client.connection.close();
  }
  process.stdout.write(`answers while the workflow task failed: ${answers.join(' ')}\n`);
}, 120_000);
