import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { test } from 'node:test';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import type { Client } from '@temporalio/client';
import { projectRoot } from '../../src/devstack/stack-config.js';
import { gateWorkflowId, asSessionId, asToolCallId } from '../../src/domain/gate/ids.js';
import { createGateWorker, workflowsPath } from '../../src/worker.js';
import {
  decisionAttribute,
  sessionIdAttribute,
  toolAttribute,
} from '../../src/workflows/search-attributes.js';
import { startTestApi } from '../support/api.js';
import { testConfig } from '../support/env.js';
import {
  createRun,
  defaultPolicy,
  expectStatus,
  seedWorkspace,
  toolCall,
} from '../support/seed.js';
import { testTemporalClient } from '../support/temporal.js';
import { gateDataConverter } from '../../src/temporal/connections.js';
import { gateWorkflowBundle } from '../support/workflow-bundle.js';

const beforeChange = path.join(projectRoot, 'test/fixtures/workflows/visibility-before-patch.ts');
const previousRelease = path.join(projectRoot, 'test/fixtures/workflows/previous-release/gate.ts');
const quiet = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} };

/** The gate workflow as deployed before a change: one module it imports swapped for its old self. */
async function bundleBefore(module: './visibility.js' | './gate.js', replacement: string) {
  const { code } = await bundleWorkflowCode({
    workflowsPath,
    logger: quiet,
    webpackConfigHook: (config) => ({
      ...config,
      plugins: [
        ...(config.plugins ?? []),
        {
          apply(compiler) {
            compiler.hooks.normalModuleFactory.tap('before-change', (factory) => {
              factory.hooks.beforeResolve.tap('before-change', (data) => {
                // Only the workflow package's own import: the old module's imports stay its own.
                if (data.request === module && !data.context.includes('fixtures'))
                  data.request = replacement;
              });
            });
          },
        },
      ],
    }),
  });
  return { code };
}

/** The gate's search attributes on a workflow, as Temporal lists them. */
async function searchAttributes(client: Client, workflowId: string) {
  const { typedSearchAttributes: found } = await client.workflow.getHandle(workflowId).describe();
  return {
    session: found.get(sessionIdAttribute),
    tool: found.get(toolAttribute),
    decision: found.get(decisionAttribute),
  };
}

test('a call waiting on its approval when the change is deployed completes on the new worker, on its old path', async () => {
  const taskQueue = `patch-${randomUUID()}`;
  const config = testConfig({ temporal: { taskQueue }, approvalRecheckS: 1 });
  const api = await startTestApi({ temporal: { taskQueue }, approvalRecheckS: 1 });
  const client = testTemporalClient();
  try {
    const seed = await seedWorkspace(api, {
      ...defaultPolicy,
      rules: [{ id: 'bash-asks', match: { tool: 'Bash' }, verdict: 'require_approval' }],
    });
    const run = await createRun(api, seed);

    const old = await createGateWorker(config, {
      workflowBundle: await bundleBefore('./visibility.js', beforeChange),
    });
    const oldRunning = old.worker.run();
    await expectStatus(
      toolCall(api, run, 'waits', { tool: 'Bash', arguments: { command: 'ls' } }),
      202,
    );
    old.worker.shutdown();
    await oldRunning;
    await old.close();

    const current = await createGateWorker(config, { workflowBundle: await gateWorkflowBundle() });
    const running = current.worker.run();
    try {
      await expectStatus(
        api.call('POST', `/v1/approvals/${run.session_id}/waits/decision`, {
          token: seed.admin.token,
          body: { decision: 'approve' },
        }),
        200,
      );
      const answer = await expectStatus(
        api.call('GET', `/v1/sessions/${run.session_id}/tool-calls/waits?wait=20`, {
          token: run.session_token,
        }),
        200,
      );
      assert.equal(answer.decision, 'allow');
      const waited = gateWorkflowId(asSessionId(run.session_id), asToolCallId('waits'));
      const result = await client.workflow.getHandle(waited).result();
      assert.equal(result.decision, 'allow');
      // Replayed on the old path: the new worker published no decision for it (the session and
      // the tool came with the start, which sets them now whatever worker runs the call).
      assert.deepEqual(await searchAttributes(client, waited), {
        session: run.session_id,
        tool: 'Bash',
        decision: undefined,
      });

      // A call started on the new worker takes the new path.
      await expectStatus(
        toolCall(api, run, 'fresh', { tool: 'Bash', arguments: { command: 'ls' } }),
        202,
      );
      const fresh = gateWorkflowId(asSessionId(run.session_id), asToolCallId('fresh'));
      assert.deepEqual(await searchAttributes(client, fresh), {
        session: run.session_id,
        tool: 'Bash',
        decision: 'pending',
      });
    } finally {
      current.worker.shutdown();
      await running;
      await current.close();
    }
  } finally {
    await client.connection.close();
    await api.close();
  }
});

test('calls the new API started on a worker of the previous release: a paused one completes on the new worker as it began, a decided one replays', async () => {
  const taskQueue = `previous-${randomUUID()}`;
  const config = testConfig({ temporal: { taskQueue }, approvalRecheckS: 1 });
  const api = await startTestApi({ temporal: { taskQueue }, approvalRecheckS: 1 });
  const client = testTemporalClient();
  try {
    const seed = await seedWorkspace(api, {
      ...defaultPolicy,
      rules: [
        { id: 'reads', match: { tool: 'Read' }, verdict: 'allow' },
        { id: 'bash-asks', match: { tool: 'Bash' }, verdict: 'require_approval' },
      ],
    });
    const run = await createRun(api, seed);
    const id = (call: string) => gateWorkflowId(asSessionId(run.session_id), asToolCallId(call));

    // The new API's start carries the session and tool; the previous worker upserts them too.
    const old = await createGateWorker(config, {
      workflowBundle: await bundleBefore('./gate.js', previousRelease),
    });
    const oldRunning = old.worker.run();
    await expectStatus(
      toolCall(api, run, 'waits', { tool: 'Bash', arguments: { command: 'ls' } }),
      202,
    );
    const read = await expectStatus(
      toolCall(api, run, 'reads', { tool: 'Read', arguments: { file_path: 'a' } }),
      200,
    );
    assert.equal(read.decision, 'allow');
    old.worker.shutdown();
    await oldRunning;
    await old.close();

    // The decided call's history (stages and recorder apart) replays on the new code.
    const history = await client.workflow.getHandle(id('reads')).fetchHistory();
    await Worker.runReplayHistory(
      {
        workflowBundle: await gateWorkflowBundle(),
        dataConverter: gateDataConverter(config.payloadKeys),
      },
      history,
      id('reads'),
    );

    const current = await createGateWorker(config, { workflowBundle: await gateWorkflowBundle() });
    const running = current.worker.run();
    try {
      await expectStatus(
        api.call('POST', `/v1/approvals/${run.session_id}/waits/decision`, {
          token: seed.admin.token,
          body: { decision: 'approve' },
        }),
        200,
      );
      const result = await client.workflow.getHandle(id('waits')).result();
      assert.equal(result.decision, 'allow');
      assert.deepEqual(await searchAttributes(client, id('waits')), {
        session: run.session_id,
        tool: 'Bash',
        decision: 'allow',
      });
    } finally {
      current.worker.shutdown();
      await running;
      await current.close();
    }
  } finally {
    await client.connection.close();
    await api.close();
  }
});
