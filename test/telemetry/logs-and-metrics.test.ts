import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, test } from 'vitest';
import type { ManagedProcess } from '../../tools/devstack/child-process.js';
import { startTestApi, type TestApi } from '../support/api.js';
import { boundOf, modelInput, modelRequest } from '../budget/support.js';
import {
  createRun,
  defaultPolicy,
  expectStatus,
  seedWorkspace,
  type Seed,
} from '../support/seed.js';
import { jsonLines } from '../support/json-lines.js';
import { startWorkerProcess } from '../support/worker-processes.js';
import { freeLoopbackPort } from '../../tools/devstack/free-port.js';

const taskQueue = `telemetry-${randomUUID()}`;
const canary = `canary-${randomUUID()}`;
const policy = {
  ...defaultPolicy,
  name: 'telemetry',
  rules: [
    { id: 'reads', match: { effect: 'read' }, verdict: 'allow' },
    { id: 'bash-asks', match: { tool: 'Bash' }, verdict: 'require_approval' },
  ],
};

const apiLines: string[] = [];
const workerLines: string[] = [];
let api: TestApi;
let worker: ManagedProcess;
let workerMetricsUrl: string;
let seed: Seed;

beforeAll(async () => {
  const metricsPort = await freeLoopbackPort();
  workerMetricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  worker = await startWorkerProcess(
    'telemetry-worker',
    {
      GATE_TASK_QUEUE: taskQueue,
      GATE_WORKER_METRICS_PORT: String(metricsPort),
      LOG_LEVEL: 'debug',
    },
    { output: workerLines },
  );
  api = await startTestApi(
    { temporal: { taskQueue } },
    { logger: { level: 'info', stream: { write: (line) => apiLines.push(line) } } },
  );
  seed = await seedWorkspace(api, policy);
});
afterAll(async () => {
  await api.close();
  await worker.stop();
});

function put(
  run: { session_id: string; session_token: string },
  id: string,
  body: object,
  requestId: string,
) {
  return api.call('PUT', `/v1/sessions/${run.session_id}/tool-calls/${id}`, {
    token: run.session_token,
    body,
    headers: { 'x-request-id': requestId },
  });
}

async function until(what: string, probe: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('logs and metrics', () => {
  test("a tool call's request id is echoed and appears in the API's, the workflow's and the activities' JSON log lines; no argument or credential is logged", async () => {
    const run = await createRun(api, seed);
    const readId = `req-read-${randomUUID()}`;
    const read = await put(
      run,
      'c1',
      { tool: 'Read', arguments: { file_path: `/srv/${canary}` } },
      readId,
    );
    assert.equal(read.status, 200);
    assert.equal(read.headers.get('x-request-id'), readId);

    const bashId = `req-bash-${randomUUID()}`;
    const bash = { tool: 'Bash', arguments: { command: `deploy --token ${canary}` } };
    await expectStatus(put(run, 'c2', bash, bashId), 202);
    await expectStatus(
      api.call('POST', `/v1/approvals/${run.session_id}/c2/decision`, {
        token: seed.admin.token,
        body: { decision: 'approve', reason: `because ${canary}` },
      }),
      200,
    );
    const final = await api.call('GET', `/v1/sessions/${run.session_id}/tool-calls/c2?wait=30`, {
      token: run.session_token,
    });
    assert.equal(final.body.decision, 'allow');

    const ofWorker = (id: string) => jsonLines(workerLines).filter((l) => l.request_id === id);
    await until('the workflows to log their completion', () =>
      [readId, bashId].every((id) => ofWorker(id).some((l) => l.msg === 'workflow completed')),
    );
    for (const id of [readId, bashId]) {
      const apiLog = jsonLines(apiLines).filter((l) => l.request_id === id);
      assert.ok(
        apiLog.some((l) => l.msg === 'request completed'),
        `API log of ${id}`,
      );
      const lines = ofWorker(id);
      const workflowLines = lines.filter((l) => l.sdkComponent === 'workflow');
      assert.ok(
        workflowLines.some((l) => l.msg === 'workflow started'),
        `workflow log of ${id}`,
      );
      assert.ok(workflowLines.every((l) => typeof l.workflowId === 'string'));
      const activityLines = lines.filter((l) => l.sdkComponent === 'activity');
      assert.ok(
        activityLines.some((l) => l.activityType === 'decide' && l.msg === 'activity completed'),
        `activity log of ${id}`,
      );
    }
    const completed = ofWorker(bashId).find(
      (l) => l.msg === 'workflow completed' && l.workflowType === 'gate',
    );
    assert.deepEqual([completed?.status, completed?.decision], ['decided', 'allow']);

    const everything = [...apiLines, ...workerLines].join('\n');
    for (const secret of [canary, run.session_token, seed.admin.token, api.operatorKey]) {
      assert.ok(!everything.includes(secret), 'a log holds an argument, reason or credential');
    }
  });

  test('a request id that is not a plain token is replaced by a generated one', async () => {
    for (const given of ['a b {"level":"fatal"}', 'x'.repeat(300)]) {
      const answer = await api.call('GET', '/healthz', { headers: { 'x-request-id': given } });
      assert.match(answer.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
    }
    const none = await api.call('GET', '/healthz');
    assert.match(none.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
  });

  test("the API's /metrics answers the operator key only: no credential 401, a runner's or a member's token 403", async () => {
    const run = await createRun(api, seed);
    const metrics = (token?: string) => api.call('GET', '/metrics', { ...(token && { token }) });
    const refused = [
      [await metrics(), 401],
      [await metrics(run.session_token), 403],
      [await metrics(seed.admin.token), 403],
    ] as const;
    for (const [answer, status] of refused) {
      assert.equal(answer.status, status);
      assert.match(answer.headers.get('content-type') ?? '', /^application\/problem\+json/);
      assert.doesNotMatch(JSON.stringify(answer.body), /gate_/);
    }
    const served = await metrics(api.operatorKey);
    assert.equal(served.status, 200);
    assert.match(served.body as string, /^gate_pending_approvals /m);
  });

  test("after a few calls, the API's /metrics and the worker's show the gate's series with their labels, and the Temporal SDK's", async () => {
    const input = modelInput();
    const run = await createRun(api, seed, { budget: { max_tokens: boundOf(input) + 10 } });
    const admit = (id: string) =>
      api.call('POST', `/v1/sessions/${run.session_id}/model-requests`, {
        token: run.session_token,
        body: modelRequest(id, 10, input),
      });
    await expectStatus(admit('m1'), 201);
    await expectStatus(admit('m2'), 402);
    const spent = await put(run, 'c1', { tool: 'Read', arguments: { file_path: 'a' } }, 'r-spent');
    assert.equal(spent.body.source, 'budget');
    const pendingRun = await createRun(api, seed);
    await expectStatus(
      put(pendingRun, 'p1', { tool: 'Bash', arguments: { command: 'x' } }, 'r-p'),
      202,
    );

    const apiMetrics = await expectStatus(
      api.call<string>('GET', '/metrics', { token: api.operatorKey }),
      200,
    );
    const pending = /^gate_pending_approvals (\d+)$/m.exec(apiMetrics);
    assert.ok(Number(pending?.[1]) >= 1, 'one approval of this test is pending');
    assert.match(apiMetrics, /^gate_budget_refusals_total\{where="model_request"\} [1-9]/m);
    assert.match(
      apiMetrics,
      /^gate_tool_call_decisions_total\{decision="deny",source="budget"\} [1-9]/m,
    );
    assert.match(
      apiMetrics,
      /^gate_http_request_duration_seconds_bucket\{.*route="\/v1\/runs".*\}/m,
    );

    // The SDK exports on its own schedule: poll until this test's series show.
    let workerMetrics = '';
    await until('the worker to export the gate series', () => {
      void fetch(workerMetricsUrl)
        .then((r) => r.text())
        .then((text) => (workerMetrics = text))
        .catch(() => undefined);
      return /^gate_budget_refusals_total\{[^}]*where="gate"[^}]*\} [1-9]/m.test(workerMetrics);
    });
    assert.match(workerMetrics, /^gate_stage_duration_seconds_bucket\{[^}]*stage="budget"/m);
    assert.match(
      workerMetrics,
      /^gate_stage_duration_seconds_bucket\{[^}]*outcome="deny"[^}]*stage="budget"|^gate_stage_duration_seconds_bucket\{[^}]*stage="budget"[^}]*outcome="deny"/m,
    );
    assert.match(workerMetrics, /^gate_stage_duration_seconds_count\{[^}]*stage="policy"/m);
    assert.match(workerMetrics, /^gate_decisions_total\{[^}]*decision="deny"[^}]*\} [1-9]/m);
    assert.match(workerMetrics, /^temporal_workflow_completed/m);
    assert.match(
      workerMetrics,
      /^temporal_local_activity_execution_latency_bucket\{[^}]*activity_type="decide"/m,
    );
  });
});
