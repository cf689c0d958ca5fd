import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import type { ManagedProcess } from '../../src/devstack/child-process.js';
import {
  loadStackConfig,
  stackProfile,
  type StackProfile,
} from '../../src/devstack/stack-config.js';
import { startTemporalServer } from '../../src/devstack/temporal-server.js';
import { startTestApi, type TestApi } from '../support/api.js';
import { startWorkerProcess } from '../support/worker-processes.js';
import { testConfig } from '../support/env.js';
import {
  createRun,
  defaultPolicy,
  seedWorkspace,
  toolCall,
  type CreatedRun,
} from '../support/seed.js';
import { freeLoopbackPort } from '../support/server-everything.js';

const approvalPolicy = {
  ...defaultPolicy,
  name: 'approve-bash',
  rules: [{ id: 'bash-needs-a-human', match: { tool: 'Bash' }, verdict: 'require_approval' }],
};
const bash = (n: number) => ({ tool: 'Bash', arguments: { command: `deploy ${n}` } });

let db: pg.Pool;
before(() => {
  db = new pg.Pool({ connectionString: testConfig().databaseUrl });
});
after(async () => {
  await db.end();
});

function startWorker(name: string, env: NodeJS.ProcessEnv): Promise<ManagedProcess> {
  return startWorkerProcess(name, env);
}

/** Opens `count` pending approvals across several runs; returns each call's runner and id. */
async function openApprovals(api: TestApi, count: number, perRun = 5) {
  const seed = await seedWorkspace(api, approvalPolicy);
  const calls: { run: CreatedRun; id: string }[] = [];
  for (let r = 0; r < count / perRun; r += 1) {
    const run = await createRun(api, seed);
    for (let c = 0; c < perRun; c += 1) calls.push({ run, id: `c${c}` });
  }
  const answers = await Promise.all(calls.map(({ run, id }, n) => toolCall(api, run, id, bash(n))));
  for (const answer of answers) assert.equal(answer.status, 202, JSON.stringify(answer.body));
  return { seed, calls };
}

async function decideAll(api: TestApi, token: string, calls: { run: CreatedRun; id: string }[]) {
  const decisions = calls.map((_, n) => (n % 3 === 0 ? 'deny' : 'approve'));
  const answers = await Promise.all(
    calls.map(({ run, id }, n) =>
      api.call('POST', `/v1/approvals/${run.session_id}/${id}/decision`, {
        token,
        body: { decision: decisions[n] },
      }),
    ),
  );
  for (const answer of answers) assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return decisions.map((d) => (d === 'approve' ? 'allow' : 'deny'));
}

async function assertEveryRunnerGetsItsDecision(
  api: TestApi,
  calls: { run: CreatedRun; id: string }[],
  expected: string[],
) {
  const answers = await Promise.all(
    calls.map(({ run, id }) =>
      api.call('GET', `/v1/sessions/${run.session_id}/tool-calls/${id}?wait=60`, {
        token: run.session_token,
      }),
    ),
  );
  answers.forEach((answer, n) => {
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(answer.body.decision, expected[n]);
  });
  const sessions = [...new Set(calls.map((c) => c.run.session_id))];
  const { rows } = await db.query<{ type: string; n: number }>(
    `select type, count(*)::int as n from ledger_events where stream_id = any($1) group by type`,
    [sessions],
  );
  const byType = Object.fromEntries(rows.map((r) => [r.type, r.n]));
  for (const type of [
    'tool.requested',
    'approval.requested',
    'approval.decided',
    'tool.decision',
  ]) {
    assert.equal(byType[type], calls.length, `${type}: ${byType[type]}`);
  }
  const approvals = await db.query<{ n: number }>(
    `select count(*)::int as n from approvals where session_id = any($1) and status <> 'pending'`,
    [sessions],
  );
  assert.equal(approvals.rows[0]!.n, calls.length);
}

describe('restarts against the real services', () => {
  test('the worker killed while 100 approvals are pending, all decided while it is down: every runner gets its decision, nothing duplicates', async () => {
    const taskQueue = `restart-approvals-${randomUUID()}`;
    const api = await startTestApi(
      { temporal: { taskQueue }, approvalRecheckS: 2 },
      { gateWaitMs: 90_000 },
    );
    let worker = await startWorker('worker-1', { GATE_TASK_QUEUE: taskQueue });
    try {
      const { seed, calls } = await openApprovals(api, 100);
      worker.child.kill('SIGKILL');
      await worker.exited;
      const expected = await decideAll(api, seed.admin.token, calls);
      worker = await startWorker('worker-2', { GATE_TASK_QUEUE: taskQueue });
      await assertEveryRunnerGetsItsDecision(api, calls, expected);
      // The workflows themselves closed with the row's decision.
      const { Client, Connection } = await import('@temporalio/client');
      const connection = await Connection.connect({ address: testConfig().temporal.address });
      try {
        const client = new Client({ connection });
        const results = await Promise.all(
          calls.map(({ run, id }) =>
            client.workflow.getHandle(`gate/${run.session_id}/${id}`).result(),
          ),
        );
        results.forEach((result: any, n) => {
          assert.equal(result.decision, expected[n]);
        });
      } finally {
        await connection.close();
      }
    } finally {
      await worker.stop();
      await api.close();
    }
  });

  test('the Temporal server restarted (SQLite file kept) while approvals are pending: every runner gets its decision, nothing duplicates', async () => {
    const folder = mkdtempSync(path.join(tmpdir(), 'gate-temporal-'));
    const base = stackProfile(loadStackConfig(), 'test');
    const profile: StackProfile = {
      ...base,
      temporal: {
        ...base.temporal,
        port: await freeLoopbackPort(),
        uiPort: await freeLoopbackPort(),
        sqliteFile: path.join(folder, 'temporal.sqlite'),
      },
    };
    const address = `${profile.temporal.ip}:${profile.temporal.port}`;
    const binary = process.env.GATE_TEST_TEMPORAL_BIN ?? '';
    let server = await startTemporalServer(binary, profile, { quiet: true });
    const api = await startTestApi(
      { temporal: { address }, approvalRecheckS: 2 },
      { gateWaitMs: 90_000 },
    );
    let worker = await startWorker('worker-t1', { TEMPORAL_ADDRESS: address });
    try {
      const { seed, calls } = await openApprovals(api, 20);
      await server.stop('SIGTERM', 15_000);
      await worker.stop('SIGKILL');
      server = await startTemporalServer(binary, profile, { quiet: true });
      worker = await startWorker('worker-t2', { TEMPORAL_ADDRESS: address });
      const expected = await decideAll(api, seed.admin.token, calls);
      await assertEveryRunnerGetsItsDecision(api, calls, expected);
    } finally {
      await worker.stop();
      await api.close();
      await server.stop();
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
