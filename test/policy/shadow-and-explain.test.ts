import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, test } from 'vitest';
import type { ManagedProcess } from '../../tools/devstack/child-process.js';
import { startTestApi, type TestApi } from '../support/api.js';
import {
  createRun,
  defaultPolicy,
  expectStatus,
  seedWorkspace,
  toolCall,
  toolCallUntilAnswered,
  type Seed,
} from '../support/seed.js';
import { freeLoopbackPort } from '../support/server-everything.js';
import { startWorkerProcess } from '../support/worker-processes.js';

const taskQueue = `shadow-${randomUUID()}`;
/** Version 1 decides; version 2, the shadow, asks for Bash and denies `rm` alike. */
const real = defaultPolicy;
const shadow = {
  ...defaultPolicy,
  rules: [
    { id: 'reads', match: { effect: 'read' }, verdict: 'allow' },
    { id: 'bash-asks', match: { tool: 'Bash' }, verdict: 'require_approval' },
  ],
};

let api: TestApi;
let worker: ManagedProcess;
let workerMetricsUrl: string;
let seed: Seed;

beforeAll(async () => {
  const metricsPort = await freeLoopbackPort();
  workerMetricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  worker = await startWorkerProcess('shadow-worker', {
    GATE_TASK_QUEUE: taskQueue,
    GATE_WORKER_METRICS_PORT: String(metricsPort),
  });
  api = await startTestApi({ temporal: { taskQueue } });
  seed = await seedWorkspace(api, real);
  const op = { token: api.operatorKey };
  await expectStatus(
    api.call('PUT', `/v1/policies/${seed.policyId}`, {
      ...op,
      body: { workspace: seed.workspace, ...shadow },
    }),
    200,
  );
  // The runs keep version 1 (frozen at creation by an explicit revision back to it).
  await expectStatus(
    api.call('PUT', `/v1/policies/${seed.policyId}`, {
      ...op,
      body: { workspace: seed.workspace, ...real },
    }),
    200,
  );
}, 120_000);

afterAll(async () => {
  await api.close();
  await worker.stop();
});

interface DecisionFacts {
  type: string;
  data: Record<string, unknown>;
}

async function decisionEvents(run: { session_id: string; session_token: string }) {
  const page = await expectStatus<{ events: DecisionFacts[] }>(
    api.call('GET', `/v1/sessions/${run.session_id}/events?after=0&limit=100`, {
      token: api.operatorKey,
    }),
    200,
  );
  return page.events.filter((event) => event.type === 'tool.decision');
}

function counted(metrics: string, agreement: string): number {
  const line = new RegExp(
    `^gate_shadow_verdicts_total\\{[^}]*agreement="${agreement}"[^}]*\\} (\\d+)`,
    'm',
  );
  return Number(line.exec(metrics)?.[1] ?? 0);
}

test("a shadow version's verdicts are recorded with each decision and counted by agreement, never changing the decision", async () => {
  const path = `/v1/policies/${seed.policyId}/shadow`;
  const refused = await expectStatus<{ errors: { path: string }[] }>(
    api.call('PUT', path, { token: api.operatorKey, body: { version: 9 } }),
    400,
  );
  assert.deepEqual(
    refused.errors.map((e) => e.path),
    ['body.version'],
  );
  assert.equal(
    (await api.call('PUT', path, { token: seed.admin.token, body: { version: 2 } })).status,
    403,
  );
  assert.deepEqual(
    await expectStatus(
      api.call('PUT', path, { token: api.operatorKey, body: { version: 2 } }),
      200,
    ),
    { id: seed.policyId, shadow_version: 2 },
  );

  const run = await createRun(api, seed);
  assert.equal(run.policy_version, 3);
  // Known calls: the shadow agrees on a read and on a denied rm, disagrees on an allowed ls.
  const calls = [
    { id: 'read', tool: 'Read', arguments: { file_path: '/repo/a' }, decision: 'allow' },
    { id: 'rm', tool: 'Bash', arguments: { command: 'rm -rf /' }, decision: 'deny' },
    { id: 'ls', tool: 'Bash', arguments: { command: 'ls' }, decision: 'allow' },
  ];
  for (const call of calls) {
    const answer = await expectStatus<{ decision: string }>(
      toolCall(api, run, call.id, { tool: call.tool, arguments: call.arguments }),
      200,
    );
    assert.equal(answer.decision, call.decision, 'the real version decides');
  }
  const recorded = new Map(
    (await decisionEvents(run)).map((event) => [event.data.tool_call_id, event.data]),
  );
  assert.deepEqual(
    ['read', 'rm', 'ls'].map((id) => {
      const facts = recorded.get(id);
      return [
        id,
        facts?.shadow_version,
        facts?.shadow_verdict,
        facts?.shadow_rule_id,
        facts?.shadow_agrees,
      ];
    }),
    [
      ['read', 2, 'allow', 'reads', true],
      ['rm', 2, 'require_approval', 'bash-asks', false],
      ['ls', 2, 'require_approval', 'bash-asks', false],
    ],
  );

  // The SDK exports on its own schedule: poll until the counts show.
  const deadline = Date.now() + 60_000;
  let metrics = '';
  while (counted(metrics, 'disagree') < 2 || counted(metrics, 'agree') < 1) {
    assert.ok(Date.now() < deadline, `the shadow counts show within a minute:\n${metrics}`);
    await sleep(250);
    metrics = await fetch(workerMetricsUrl)
      .then((r) => r.text())
      .catch(() => '');
  }
  assert.equal(counted(metrics, 'agree'), 1);
  assert.equal(counted(metrics, 'disagree'), 2);

  await expectStatus(
    api.call('PUT', path, { token: api.operatorKey, body: { version: null } }),
    200,
  );
});

test("explain lists each stage's verdict and what it looked at, from the record, never an argument", async () => {
  const run = await createRun(api, seed);
  const secret = `canary-${randomUUID()}`;
  await expectStatus(
    toolCallUntilAnswered(api, run, 'rm', {
      tool: 'Bash',
      arguments: { command: `echo ok; rm -rf /tmp/${secret}` },
    }),
    200,
  );
  await expectStatus(
    toolCallUntilAnswered(api, run, 'bad', { tool: 'Read', arguments: { nope: secret } }),
    200,
  );
  const explain = (id: string, token = api.operatorKey) =>
    api.call('GET', `/v1/sessions/${run.session_id}/tool-calls/${id}/explain`, { token });

  const denied = await expectStatus<{
    decision: string;
    stages: { stage: string; verdict: string; looked_at: Record<string, unknown> }[];
  }>(explain('rm'), 200);
  assert.ok(!JSON.stringify(denied).includes(secret), 'no argument value');
  assert.equal(denied.decision, 'deny');
  assert.deepEqual(
    denied.stages.map((s) => [s.stage, s.verdict]),
    [
      ['budget', 'pass'],
      ['capability', 'pass'],
      ['schema', 'pass'],
      ['trust_tier', 'pass'],
      ['policy', 'deny'],
    ],
  );
  const policy = denied.stages[4]?.looked_at;
  assert.ok(policy);
  assert.equal(policy.rule_id, 'no-rm');
  assert.equal(policy.matched, 'tool "Bash"\n/command command ["rm","**"]');
  assert.equal(policy.policy_version, run.policy_version);
  const tool = run.tools.find((t) => t.name === 'Bash');
  assert.ok(tool);
  const [, capability, schemaStage] = denied.stages;
  assert.ok(capability && schemaStage);
  assert.equal(capability.looked_at.toolset_digest, run.toolset_digest);
  assert.equal(capability.looked_at.tool_digest, tool.digest);
  assert.match(String(schemaStage.looked_at.arguments_digest), /^sha256:/);

  const schema = await expectStatus<{ stages: { stage: string; verdict: string }[] }>(
    explain('bad'),
    200,
  );
  assert.ok(!JSON.stringify(schema).includes(secret), 'no argument value, not even a key');
  assert.deepEqual(
    schema.stages.map((s) => [s.stage, s.verdict]),
    [
      ['budget', 'pass'],
      ['capability', 'pass'],
      ['schema', 'deny'],
      ['trust_tier', 'not_reached'],
      ['policy', 'not_reached'],
    ],
  );

  // An admin may not read a call no person was asked about: nothing read off its arguments.
  const asAdmin = await expectStatus<{
    request_digest?: string;
    arguments_hidden?: boolean;
    stages: { stage: string; verdict: string; looked_at: Record<string, unknown> }[];
  }>(explain('rm', seed.admin.token), 200);
  assert.equal(asAdmin.arguments_hidden, true);
  assert.equal(asAdmin.request_digest, undefined);
  const adminPolicy = asAdmin.stages[4]?.looked_at;
  assert.ok(adminPolicy);
  assert.equal(adminPolicy.rule_id, 'no-rm');
  assert.ok(!('matched' in adminPolicy), 'no pattern the arguments matched');
  assert.ok(!('arguments_digest' in (asAdmin.stages[2]?.looked_at ?? {})), 'no arguments digest');
  assert.deepEqual(
    asAdmin.stages.map((s) => s.verdict),
    denied.stages.map((s) => s.verdict),
  );
  assert.equal((await explain('never-sent')).status, 404);
  assert.equal((await explain('rm', run.session_token)).status, 403);

  // An admin of another workspace learns nothing of this one's calls, not even that they exist.
  const other = await expectStatus<{ id: string }>(
    api.call('POST', '/v1/workspaces', { token: api.operatorKey, body: { name: 'elsewhere' } }),
    201,
  );
  const outsider = await expectStatus<{ user_token: string }>(
    api.call('POST', `/v1/workspaces/${other.id}/members`, {
      token: api.operatorKey,
      body: { name: 'olga', role: 'admin' },
    }),
    201,
  );
  assert.equal((await explain('rm', outsider.user_token)).status, 404);
});
