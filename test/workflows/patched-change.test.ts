import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { test } from 'vitest';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import type { Client } from '@temporalio/client';
import { projectRoot } from '../../tools/devstack/stack-config.js';
import { gateWorkflowId, asSessionId, asToolCallId } from '../../src/domain/gate/ids.js';
import { createGateWorker, workflowsPath } from '../../src/worker.js';
import {
  decisionAttribute,
  sessionIdAttribute,
  toolAttribute,
} from '../../src/workflows/search-attributes.js';
import { startTestApi, type TestApi } from '../support/api.js';
import { testConfig } from '../support/env.js';
import {
  createRun,
  defaultPolicy,
  expectStatus,
  seedWorkspace,
  toolCall,
  type CreatedRun,
  type Seed,
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

/** Runs `work` with a gate worker on `bundle` polling the config's task queue, then stops it. */
async function withWorker<T>(
  config: ReturnType<typeof testConfig>,
  workflowBundle: Awaited<ReturnType<typeof gateWorkflowBundle>>,
  work: () => Promise<T>,
): Promise<T> {
  const gate = await createGateWorker(config, { workflowBundle });
  const running = gate.worker.run();
  try {
    return await work();
  } finally {
    gate.worker.shutdown();
    await running;
    await gate.close();
  }
}

/** The workspace's admin approves the call. */
async function approve(api: TestApi, seed: Seed, run: CreatedRun, call: string) {
  await expectStatus(
    api.call('POST', `/v1/approvals/${run.session_id}/${call}/decision`, {
      token: seed.admin.token,
      body: { decision: 'approve' },
    }),
    200,
  );
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

/** A workspace with `rules`, a run and an API on a task queue of their own, for `work`. */
async function onOwnQueue(
  rules: Record<string, unknown>[],
  work: (stack: {
    config: ReturnType<typeof testConfig>;
    api: TestApi;
    client: Client;
    seed: Seed;
    run: CreatedRun;
  }) => Promise<void>,
) {
  const taskQueue = `patch-${randomUUID()}`;
  const config = testConfig({ temporal: { taskQueue }, approvalRecheckS: 1 });
  const api = await startTestApi({ temporal: { taskQueue }, approvalRecheckS: 1 });
  const client = testTemporalClient();
  try {
    const seed = await seedWorkspace(api, { ...defaultPolicy, rules });
    await work({ config, api, client, seed, run: await createRun(api, seed) });
  } finally {
    await client.connection.close();
    await api.close();
  }
}

test('a call waiting on its approval when the change is deployed completes on the new worker, on its old path', async () => {
  const rules = [{ id: 'bash-asks', match: { tool: 'Bash' }, verdict: 'require_approval' }];
  await onOwnQueue(rules, async ({ config, api, client, seed, run }) => {
    await withWorker(config, await bundleBefore('./visibility.js', beforeChange), () =>
      expectStatus(
        toolCall(api, run, 'waits', { tool: 'Bash', arguments: { command: 'ls' } }),
        202,
      ),
    );

    await withWorker(config, await gateWorkflowBundle(), async () => {
      await approve(api, seed, run, 'waits');
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
    });
  });
});

test('calls the new API started on a worker of the previous release: a paused one completes on the new worker as it began, a decided one replays', async () => {
  const rules = [
    { id: 'reads', match: { tool: 'Read' }, verdict: 'allow' },
    { id: 'bash-asks', match: { tool: 'Bash' }, verdict: 'require_approval' },
  ];
  await onOwnQueue(rules, async ({ config, api, client, seed, run }) => {
    const id = (call: string) => gateWorkflowId(asSessionId(run.session_id), asToolCallId(call));

    // The new API's start carries the session and tool; the previous worker upserts them too.
    await withWorker(config, await bundleBefore('./gate.js', previousRelease), async () => {
      await expectStatus(
        toolCall(api, run, 'waits', { tool: 'Bash', arguments: { command: 'ls' } }),
        202,
      );
      const read = await expectStatus(
        toolCall(api, run, 'reads', { tool: 'Read', arguments: { file_path: 'a' } }),
        200,
      );
      assert.equal(read.decision, 'allow');
    });

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

    await withWorker(config, await gateWorkflowBundle(), async () => {
      await approve(api, seed, run, 'waits');
      const result = await client.workflow.getHandle(id('waits')).result();
      assert.equal(result.decision, 'allow');
      assert.deepEqual(await searchAttributes(client, id('waits')), {
        session: run.session_id,
        tool: 'Bash',
        decision: 'allow',
      });
    });
  });
});
