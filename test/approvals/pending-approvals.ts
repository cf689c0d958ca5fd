/** Many pending approvals at once, decided together: what the restart tests act out. */
import assert from 'node:assert/strict';
import type pg from 'pg';
import type { TemporalConfig } from '../../src/config.js';
import type { ApiCaller } from '../support/api.js';
import { testTemporalClient } from '../support/temporal.js';
import {
  createRun,
  defaultPolicy,
  seedWorkspace,
  toolCall,
  untilAnswered,
  type CreatedRun,
} from '../support/seed.js';

const approvalPolicy = {
  ...defaultPolicy,
  name: 'approve-bash',
  rules: [{ id: 'bash-needs-a-human', match: { tool: 'Bash' }, verdict: 'require_approval' }],
};
const bash = (n: number) => ({ tool: 'Bash', arguments: { command: `deploy ${n}` } });

/** Opens `count` pending approvals across several runs; returns each call's runner and id. */
export async function openApprovals(api: ApiCaller, count: number, perRun = 5) {
  const seed = await seedWorkspace(api, approvalPolicy);
  const runs: CreatedRun[] = await Promise.all(
    Array.from({ length: count / perRun }, () => createRun(api, seed)),
  );
  const calls = runs.flatMap((run) =>
    Array.from({ length: perRun }, (_, c) => ({ run, id: `c${c}` })),
  );
  // A busy machine can make the gate answer 503 (still evaluating): sent again, as a runner does,
  // for as long as a lone worker process takes to start 100 workflows beside another full suite.
  const answers = await Promise.all(
    calls.map(({ run, id }, n) => untilAnswered(() => toolCall(api, run, id, bash(n)), 180_000)),
  );
  for (const answer of answers) assert.equal(answer.status, 202, JSON.stringify(answer.body));
  return { seed, calls };
}

/** Decides every call, sending a decision again while the API answers 503, as a person would. */
export async function decideAll(
  api: ApiCaller,
  token: string,
  calls: { run: CreatedRun; id: string }[],
) {
  const decisions = calls.map((_, n) => (n % 3 === 0 ? 'deny' : 'approve'));
  const answers = await Promise.all(
    calls.map(({ run, id }, n) =>
      untilAnswered(() =>
        api.call('POST', `/v1/approvals/${run.session_id}/${id}/decision`, {
          token,
          body: { decision: decisions[n] },
        }),
      ),
    ),
  );
  for (const answer of answers) assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return decisions.map((d) => (d === 'approve' ? 'allow' : 'deny'));
}

export async function assertEveryRunnerGetsItsDecision(
  api: ApiCaller,
  db: pg.Pool,
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

/** Every call's workflow has closed, and with the decision its runner got. */
export async function assertEveryWorkflowEndsWith(
  calls: { run: CreatedRun; id: string }[],
  expected: string[],
  temporal: Partial<TemporalConfig> = {},
) {
  const client = testTemporalClient(temporal);
  try {
    const results = await Promise.all(
      calls.map(({ run, id }) =>
        client.workflow.getHandle(`gate/${run.session_id}/${id}`).result(),
      ),
    );
    results.forEach((result: { decision?: string }, n) => {
      assert.equal(result.decision, expected[n]);
    });
  } finally {
    await client.connection.close();
  }
}
