import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, test } from 'vitest';
import pg from 'pg';
import type { ManagedProcess } from '../../tools/devstack/child-process.js';
import { startTestApi, type TestApi } from '../support/api.js';
import { testConfig } from '../support/env.js';
import {
  createRun,
  defaultPolicy,
  expectStatus,
  seedWorkspace,
  toolCall,
} from '../support/seed.js';
import { startWorkerProcess } from '../support/worker-processes.js';

/**
 * A call accepted before its run was revoked can reach its approval after: the approval is
 * denied in the transaction that writes it, so nothing of a revoked run waits for a person (who
 * could no longer decide it) or for its expiry (whose on_timeout could allow it).
 */
const taskQueue = `revoked-${randomUUID()}`;
let api: TestApi;
let worker: ManagedProcess;
let db: pg.Pool;

beforeAll(async () => {
  // The approval is written a few seconds after the call is accepted: time to revoke the run.
  worker = await startWorkerProcess(
    'revoked-worker',
    { GATE_TASK_QUEUE: taskQueue },
    { faults: { delayMs: { requestApproval: 3_000 } } },
  );
  api = await startTestApi({ temporal: { taskQueue } });
  db = new pg.Pool({ connectionString: testConfig().databaseUrl });
});
afterAll(async () => {
  await api.close();
  await worker.stop();
  await db.end();
});

async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

test('a call that reaches its approval after its run was revoked is denied at once: nothing of the run stays pending', async () => {
  const seed = await seedWorkspace(api, {
    ...defaultPolicy,
    rules: [{ id: 'bash-asks', match: { tool: 'Bash' }, verdict: 'require_approval' }],
  });
  const run = await createRun(api, seed);
  const put = toolCall(api, run, 'c1', { tool: 'Bash', arguments: { command: 'deploy' } });
  await until('the call to be accepted', async () => {
    const { rows } = await db.query('select status from tool_calls where session_id = $1', [
      run.session_id,
    ]);
    return rows[0] as { status: string } | undefined;
  });
  await expectStatus(
    api.call('POST', `/v1/runs/${run.run_id}/revoke`, { token: api.operatorKey }),
    200,
  );
  const { rows: before } = await db.query('select 1 from approvals where session_id = $1', [
    run.session_id,
  ]);
  assert.equal(before.length, 0, 'the revocation came before the approval');

  const approval = await until('the approval to be written', async () => {
    const { rows } = await db.query<{ status: string; decision: string }>(
      'select status, decision from approvals where session_id = $1',
      [run.session_id],
    );
    return rows[0];
  });
  assert.deepEqual({ ...approval }, { status: 'denied', decision: 'deny' });
  const { rows: calls } = await db.query(
    'select status, decision from tool_calls where session_id = $1',
    [run.session_id],
  );
  assert.deepEqual({ ...calls[0] }, { status: 'decided', decision: 'deny' });
  const { rows: ledger } = await db.query<{ type: string }>(
    'select type from ledger_events where stream_id = $1 order by seq',
    [run.session_id],
  );
  assert.deepEqual(
    ledger.map((e) => e.type),
    [
      'run.created',
      'tool.requested',
      'run.revoked',
      'approval.requested',
      'approval.decided',
      'tool.decision',
    ],
  );
  // Accepted before the revocation, the PUT still gets its answer; the token is refused after.
  assert.ok([200, 202].includes((await put).status));
  const decided = await api.call('POST', `/v1/approvals/${run.session_id}/c1/decision`, {
    token: seed.admin.token,
    body: { decision: 'approve' },
  });
  assert.equal(decided.status, 409);
});
