import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { waitFor, type ManagedProcess } from '../../tools/devstack/child-process.js';
import type { ApiCaller } from '../support/api.js';
import { startApiProcess } from '../support/api-process.js';
import { startFakeAnthropic } from '../support/fake-anthropic.js';
import { startOtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver.js';
import { createModelRun, createProvider, postMessages, smallRequest } from '../model/support.js';
import {
  createRun,
  defaultPolicy,
  expectStatus,
  seedWorkspace,
  type Seed,
} from '../support/seed.js';
import { digestOf } from '../../src/domain/ledger/digest.js';
import { jsonLines } from '../support/json-lines.js';
import { startRugpullUpstream } from '../support/rugpull-upstream.js';
import { startWorkerProcess } from '../support/worker-processes.js';

const taskQueue = `traces-${randomUUID()}`;
const canary = `canary-${randomUUID()}`;
const operatorKey = `fgo_${randomUUID()}`;
const policy = {
  ...defaultPolicy,
  name: 'traced',
  rules: [
    { id: 'reads', match: { effect: 'read' }, verdict: 'allow' },
    {
      id: 'no-rm',
      match: { tool: 'Bash', args: [{ path: '/command', op: 'command', value: [['rm', '**']] }] },
      verdict: 'deny',
    },
    { id: 'bash-asks', match: { tool: 'Bash' }, verdict: 'require_approval' },
  ],
};
const putRoute = 'PUT /v1/sessions/:session_id/tool-calls/:tool_call_id';

let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
let worker: ManagedProcess;
let apiProcess: ManagedProcess;
let api: ApiCaller;
let seed: Seed;
const workerLines: string[] = [];
const apiLines: string[] = [];

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  // The standard variables, as an operator sets them; a short batch delay so spans arrive soon.
  const otel = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_BSP_SCHEDULE_DELAY: '100' };
  worker = await startWorkerProcess(
    'traced-worker',
    { ...otel, GATE_TASK_QUEUE: taskQueue, LOG_LEVEL: 'debug' },
    // The broker fails with a text of its own: what a span may say of it is the gate's sentence.
    { output: workerLines, faults: { fail: { broker: `the broker saw ${canary}` } } },
  );
  ({ process: apiProcess, api } = await startApiProcess(
    'traced-api',
    {
      ...otel,
      GATE_TASK_QUEUE: taskQueue,
      GATE_OPERATOR_KEY: operatorKey,
      // Every workflow runs on the worker process: the trace crosses two processes.
      GATE_EAGER_START: 'off',
    },
    { output: apiLines },
  ));
  seed = await seedWorkspace(api, policy);
});
afterAll(async () => {
  await apiProcess.stop();
  await worker.stop();
  await receiver.close();
});

/** The API's span of one call's PUT, once exported. */
function putSpan(toolCallId: string): ReceivedSpan | undefined {
  return receiver.spans.find(
    (s) => s.name === putRoute && s.attributes['gate.tool_call_id'] === toolCallId,
  );
}

/** Whether `span` descends from `root` through parents in the same trace. */
function descends(span: ReceivedSpan, root: ReceivedSpan, trace: ReceivedSpan[]): boolean {
  const byId = new Map(trace.map((s) => [s.spanId, s]));
  let at: ReceivedSpan | undefined = span;
  for (let hops = 0; at && hops < 100; hops++) {
    if (at.spanId === root.spanId) return true;
    at = at.parentSpanId === undefined ? undefined : byId.get(at.parentSpanId);
  }
  return false;
}

/**
 * The trace of one call: its PUT's span and every span in its trace, once `complete` holds and
 * every span's parents have arrived (processes export in batches, a parent after its children).
 */
async function traceOf(toolCallId: string, complete: (trace: ReceivedSpan[]) => boolean) {
  return waitFor(
    `the trace of ${toolCallId}`,
    () => {
      const root = putSpan(toolCallId);
      if (!root) throw new Error('no PUT span yet');
      const trace = receiver.spans.filter((s) => s.traceId === root.traceId);
      if (!complete(trace)) throw new Error('trace not complete yet');
      const loose = trace.find((span) => !descends(span, root, trace));
      if (loose) throw new Error(`${loose.name} is not under the PUT (yet)`);
      return Promise.resolve({ root, trace });
    },
    { timeoutMs: 30_000, intervalMs: 100 },
  );
}

const named = (trace: ReceivedSpan[], name: string) => trace.filter((s) => s.name === name);
const decidedBy = (trace: ReceivedSpan[], decision: string) =>
  trace.some(
    (s) => s.name.startsWith('RunActivity:') && s.attributes['gate.decision'] === decision,
  );

/** What every call's trace shows: one tree from the API's request to the activities. */
function assertOneTree(root: ReceivedSpan, trace: ReceivedSpan[]) {
  assert.equal(root.parentSpanId, undefined, 'the PUT begins the trace');
  assert.equal(root.service, 'fluidbox-gate-api');
  assert.equal(named(trace, 'UpdateWithStartWorkflow:toolCall').length, 1);
  const run = named(trace, 'RunWorkflow:gate');
  assert.equal(run.length, 1, 'the workflow ran in this trace');
  assert.equal(run[0]?.service, 'fluidbox-gate-worker');
  const activities = trace.filter((s) => s.name.startsWith('RunActivity:'));
  assert.ok(activities.length > 0, 'its activities are in this trace');
  assert.ok(activities.every((s) => s.service === 'fluidbox-gate-worker'));
  const queries = trace.filter((s) => s.attributes['db.system'] === 'postgresql');
  assert.ok(
    queries.some((s) => s.service === 'fluidbox-gate-api'),
    "the API's queries are in it",
  );
  assert.ok(
    queries.some((s) => s.service === 'fluidbox-gate-worker'),
    "the activities' queries are in it",
  );
  assert.ok(
    trace.some((s) => typeof s.attributes['gate.stage.policy.duration_ms'] === 'number'),
    "the policy stage's time is an attribute",
  );
}

describe('traces', () => {
  test('an allowed, a denied and an approved call each make one trace from the API request through the workflow to its activities and queries, with the decision, source and rule as attributes', async () => {
    const run = await createRun(api, seed);
    const put = (id: string, body: object) =>
      api.call('PUT', `/v1/sessions/${run.session_id}/tool-calls/${id}`, {
        token: run.session_token,
        body,
      });

    assert.equal(
      (await put('read', { tool: 'Read', arguments: { file_path: `/srv/${canary}` } })).status,
      200,
    );
    const denied = await put('rm', {
      tool: 'Bash',
      arguments: { command: `rm -rf /srv/${canary}` },
    });
    assert.equal(denied.body.decision, 'deny');
    await expectStatus(
      put('deploy', { tool: 'Bash', arguments: { command: `deploy --token ${canary}` } }),
      202,
    );
    await expectStatus(
      api.call('POST', `/v1/approvals/${run.session_id}/deploy/decision`, {
        token: seed.admin.token,
        body: { decision: 'approve', reason: `because ${canary}` },
      }),
      200,
    );
    const final = await api.call(
      'GET',
      `/v1/sessions/${run.session_id}/tool-calls/deploy?wait=30`,
      { token: run.session_token },
    );
    assert.equal(final.body.decision, 'allow');

    const allowed = await traceOf('read', (t) => decidedBy(t, 'allow'));
    assertOneTree(allowed.root, allowed.trace);
    assert.equal(allowed.root.attributes['gate.decision'], 'allow');
    assert.equal(allowed.root.attributes['gate.rule_id'], 'reads');
    assert.equal(allowed.root.attributes['gate.tool'], 'Read');
    assert.equal(allowed.root.attributes['gate.tool_digest'], undefined);

    const deny = await traceOf('rm', (t) => decidedBy(t, 'deny'));
    assertOneTree(deny.root, deny.trace);
    assert.deepEqual(
      [deny.root.attributes['gate.decision'], deny.root.attributes['gate.source']],
      ['deny', 'policy'],
    );
    assert.equal(deny.root.attributes['gate.rule_id'], 'no-rm');

    // The PUT answered "pending"; the workflow went on after the approval, in the same trace.
    const approved = await traceOf('deploy', (t) => decidedBy(t, 'allow'));
    assertOneTree(approved.root, approved.trace);
    assert.equal(approved.root.attributes['gate.status'], 'pending_approval');
    const traceIds = [allowed, deny, approved].map((t) => t.root.traceId);
    assert.equal(new Set(traceIds).size, 3, 'one trace per call');
    // The trace id is in the JSON logs of both processes: read from their output as it arrives,
    // which on a loaded machine may be after the spans (another pipe, another process).
    for (const traceId of traceIds) {
      await waitFor(
        `log lines of ${traceId} in both processes`,
        () => {
          assert.ok(
            jsonLines(apiLines).some((l) => l.trace_id === traceId),
            `API log lines of ${traceId}`,
          );
          assert.ok(
            jsonLines(workerLines).some(
              (l) => l.trace_id === traceId && l.sdkComponent === 'activity',
            ),
            `activity log lines of ${traceId}`,
          );
          return Promise.resolve();
        },
        { timeoutMs: 30_000 },
      );
    }

    // No argument, reason or credential left either process in a span.
    const sent = receiver.bodies.join('\n');
    for (const secret of [canary, run.session_token, operatorKey, seed.admin.token]) {
      assert.ok(!sent.includes(secret), 'a secret or an argument value was exported');
    }
  });

  test("a tool the run never froze is traced by its digest, and a failing activity's span says the gate's sentence, never the error's text", async () => {
    const upstream = await startRugpullUpstream({ token: canary });
    try {
      const connection = await expectStatus(
        api.call('POST', '/v1/connections', {
          token: operatorKey,
          body: {
            workspace: seed.workspace,
            name: 'notes',
            kind: 'org',
            url: upstream.url,
            credential: { type: 'bearer', token: canary },
          },
        }),
        201,
      );
      const run = await createRun(api, seed, {
        tools: { bundles: [seed.bundleId], connections: [{ id: connection.id }] },
      });
      const put = (id: string, body: object) =>
        api.call('PUT', `/v1/sessions/${run.session_id}/tool-calls/${id}`, {
          token: run.session_token,
          body,
        });
      const unknown = `Unknown-${canary}`;
      assert.equal((await put('unknown', { tool: unknown, arguments: {} })).body.decision, 'deny');
      const brokered = await put('brokered', {
        tool: 'mcp__notes__search_notes',
        arguments: { query: 'q' },
        execute: true,
      });
      assert.ok([200, 202].includes(brokered.status), JSON.stringify(brokered.body));

      const denied = await traceOf('unknown', (t) => decidedBy(t, 'deny'));
      assert.equal(denied.root.attributes['gate.tool'], undefined);
      assert.equal(denied.root.attributes['gate.tool_digest'], digestOf(unknown));
      const failed = await waitFor(
        'the failed broker attempts',
        () => {
          const spans = receiver.spans.filter(
            (s) => s.name === 'RunActivity:broker' && s.statusMessage !== undefined,
          );
          if (spans.length === 0) throw new Error('not exported yet');
          return Promise.resolve(spans);
        },
        { timeoutMs: 30_000, intervalMs: 100 },
      );
      for (const span of failed) {
        assert.equal(span.statusMessage, 'the operation failed (Error)');
        for (const event of span.events.filter((e) => e.name === 'exception')) {
          assert.equal(event.attributes['exception.message'], 'the operation failed (Error)');
          assert.equal(event.attributes['exception.stacktrace'], undefined);
        }
      }
      const sent = receiver.bodies.join('\n');
      assert.ok(!sent.includes(canary), "a tool's name or an error's text was exported");
    } finally {
      await upstream.close();
    }
  });

  test("a proxied model request is one trace: the request's span, its queries, and the upstream call under it; no prompt or provider key in any attribute", async () => {
    const fake = await startFakeAnthropic();
    try {
      const provider = await createProvider(api, seed, fake.url);
      const run = await createModelRun(api, seed, provider.id, 100_000);
      const prompt = smallRequest(100, {
        messages: [{ role: 'user', content: `Say ${canary}.` }],
      });
      const answer = await postMessages(api, JSON.stringify(prompt), {
        'x-api-key': run.session_token,
      });
      assert.equal(answer.status, 200);
      const { upstream, trace } = await waitFor(
        'the trace of the model request',
        () => {
          const found = receiver.spans.find(
            (s) => s.name === 'model upstream' && s.service === 'fluidbox-gate-api',
          );
          const spans = receiver.spans.filter((s) => s.traceId === found?.traceId);
          // Its request's span ends after it, and may come in a later batch.
          if (!found || !spans.some((s) => s.parentSpanId === undefined))
            throw new Error('not exported yet');
          return Promise.resolve({ upstream: found, trace: spans });
        },
        { timeoutMs: 30_000, intervalMs: 100 },
      );
      const root = trace.find((s) => s.parentSpanId === undefined);
      assert.equal(root?.name, 'POST /anthropic/v1/messages');
      assert.equal(upstream.parentSpanId, root.spanId);
      assert.equal(upstream.attributes['gate.model.outcome'], 'completed');
      assert.equal(upstream.attributes['http.response.status_code'], 200);
      assert.ok(trace.some((s) => s.attributes['db.system'] === 'postgresql'));
      const sent = receiver.bodies.join('\n');
      for (const secret of [canary, provider.key, run.session_token]) {
        assert.ok(!sent.includes(secret), 'a prompt or a key was exported');
      }
    } finally {
      await fake.close();
    }
  });
});
