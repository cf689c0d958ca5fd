import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { asSessionId, asToolCallId } from '../../src/domain/gate/ids.js';
import { settleAndRecord } from '../../src/store/approval-settlement.js';
import { startTestApi } from '../support/api.js';
import { testTemporalClient } from '../support/temporal.js';
import { createRun, defaultPolicy, expectStatus, toolCallUntilAnswered } from '../support/seed.js';
import { useHarness } from '../support/harness.js';

const approvalPolicy = {
  ...defaultPolicy,
  name: 'approve-bash',
  rules: [
    { id: 'reads', match: { effect: 'read' }, verdict: 'allow' },
    { id: 'bash-needs-a-human', match: { tool: 'Bash' }, verdict: 'require_approval' },
  ],
  autonomous_fallback: 'deny',
  approval: { timeout_s: 600, on_timeout: 'deny' },
};

const h = useHarness({ api: { approvalRecheckS: 1 }, policy: approvalPolicy });

async function member(role: 'member' | 'approver' | 'admin', workspace = h.seed.workspace) {
  const created = await expectStatus(
    h.api.call('POST', `/v1/workspaces/${workspace}/members`, {
      token: h.api.operatorKey,
      body: { name: `${role}-${Math.random().toString(36).slice(2, 8)}`, role },
    }),
    201,
  );
  return { user_id: created.user_id as string, token: created.user_token as string };
}

async function policyWith(overrides: Record<string, unknown>) {
  const created = await expectStatus(
    h.api.call('POST', '/v1/policies', {
      token: h.api.operatorKey,
      body: { ...approvalPolicy, workspace: h.seed.workspace, ...overrides },
    }),
    201,
  );
  return created.id as string;
}

const decide = (
  token: string,
  sessionId: string,
  callId: string,
  decision: 'approve' | 'deny',
  reason?: string,
) =>
  h.api.call('POST', `/v1/approvals/${sessionId}/${callId}/decision`, {
    token,
    body: reason === undefined ? { decision } : { decision, reason },
  });

async function eventTypes(sessionId: string): Promise<string[]> {
  const { rows } = await h.db.query<{ type: string }>(
    'select type from ledger_events where stream_id = $1 order by seq',
    [sessionId],
  );
  return rows.map((r) => r.type);
}

const bash = { tool: 'Bash', arguments: { command: 'make deploy' } };

describe('the pause', () => {
  test('require_approval in a supervised run answers 202 pending, writes one row and one approval.requested', async () => {
    const run = await createRun(h.api, h.seed);
    const pending = await expectStatus(toolCallUntilAnswered(h.api, run, 'c1', bash), 202);
    assert.equal(pending.status, 'pending_approval');
    assert.match(pending.approval.url, new RegExp(`/approvals/${run.session_id}/c1$`));
    assert.ok(Date.parse(pending.approval.expires_at) > Date.now() + 590_000);

    // A runner that restarts and re-sends the same PUT re-attaches: same answer, nothing new.
    const again = await expectStatus(toolCallUntilAnswered(h.api, run, 'c1', bash), 202);
    assert.deepEqual(again, pending);
    const rows = await h.db.query(
      'select status, arguments, rule_id, authority from approvals where session_id = $1',
      [run.session_id],
    );
    assert.equal(rows.rows.length, 1);
    assert.deepEqual(rows.rows[0], {
      status: 'pending',
      arguments: { command: 'make deploy' },
      rule_id: 'bash-needs-a-human',
      authority: 'workspace_approvers',
    });
    assert.deepEqual(await eventTypes(run.session_id), [
      'run.created',
      'tool.requested',
      'approval.requested',
    ]);
    const state = await expectStatus(
      h.api.call('GET', `/v1/sessions/${run.session_id}/tool-calls/c1`, {
        token: run.session_token,
      }),
      202,
    );
    assert.equal(state.status, 'pending_approval');
  });

  test('an approval decides the call: the waiting runner, a re-sent PUT and the ledger all show it', async () => {
    const run = await createRun(h.api, h.seed);
    await expectStatus(toolCallUntilAnswered(h.api, run, 'c1', bash), 202);
    const waiting = h.api.call('GET', `/v1/sessions/${run.session_id}/tool-calls/c1?wait=20`, {
      token: run.session_token,
    });
    await new Promise((r) => setTimeout(r, 300));
    const decided = await expectStatus(
      decide(h.seed.admin.token, run.session_id, 'c1', 'approve', 'ship it'),
      200,
    );
    assert.equal(decided.outcome, 'decided');
    assert.equal(decided.decision, 'allow');
    const answer = await expectStatus(waiting, 200);
    assert.equal(answer.decision, 'allow');
    assert.match(answer.reason, /approved by ana: ship it/);
    assert.equal(answer.rule_id, 'bash-needs-a-human');
    const resent = await expectStatus(toolCallUntilAnswered(h.api, run, 'c1', bash), 200);
    assert.deepEqual(resent, answer);
    assert.deepEqual(await eventTypes(run.session_id), [
      'run.created',
      'tool.requested',
      'approval.requested',
      'approval.decided',
      'tool.decision',
    ]);
  });

  test('a denial decides deny with source=approval', async () => {
    const run = await createRun(h.api, h.seed);
    await expectStatus(toolCallUntilAnswered(h.api, run, 'c1', bash), 202);
    await expectStatus(decide(h.seed.admin.token, run.session_id, 'c1', 'deny'), 200);
    const answer = await expectStatus(
      h.api.call('GET', `/v1/sessions/${run.session_id}/tool-calls/c1?wait=10`, {
        token: run.session_token,
      }),
      200,
    );
    assert.equal(answer.decision, 'deny');
    assert.equal(answer.source, 'approval');
  });
});

describe('one winner', () => {
  test('50 concurrent decisions on one approval: one 200, 49 409s, one approval.decided, one tool.decision, and the runner sees the winner', async () => {
    const run = await createRun(h.api, h.seed);
    await expectStatus(toolCallUntilAnswered(h.api, run, 'c1', bash), 202);
    const deciders = [
      h.seed.admin,
      await member('approver'),
      await member('approver'),
      await member('admin'),
    ];
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        decide(
          deciders[i % deciders.length]!.token,
          run.session_id,
          'c1',
          i % 2 === 0 ? 'approve' : 'deny',
        ),
      ),
    );
    const winners = answers.filter((a) => a.status === 200);
    const losers = answers.filter((a) => a.status === 409);
    assert.equal(winners.length, 1);
    assert.equal(losers.length, 49);
    const winner = winners[0]!.body;
    for (const loser of losers) {
      assert.equal(loser.body.outcome, 'already_decided');
      assert.equal(loser.body.final.decision, winner.decision);
    }
    const types = await eventTypes(run.session_id);
    assert.equal(types.filter((t) => t === 'approval.decided').length, 1);
    assert.equal(types.filter((t) => t === 'tool.decision').length, 1);
    const answer = await expectStatus(
      h.api.call('GET', `/v1/sessions/${run.session_id}/tool-calls/c1?wait=10`, {
        token: run.session_token,
      }),
      200,
    );
    assert.equal(answer.decision, winner.decision);
  });
});

describe('who may decide', () => {
  test('approvers and admins of the workspace decide; members, suspended approvers, the operator and runners do not', async () => {
    const run = await createRun(h.api, h.seed);
    await expectStatus(toolCallUntilAnswered(h.api, run, 'c1', bash), 202);
    const plain = await member('member');
    const suspended = await member('approver');
    await expectStatus(
      h.api.call('PATCH', `/v1/workspaces/${h.seed.workspace}/members/${suspended.user_id}`, {
        token: h.api.operatorKey,
        body: { status: 'suspended' },
      }),
      200,
    );
    const otherWorkspace = await expectStatus(
      h.api.call('POST', '/v1/workspaces', {
        token: h.api.operatorKey,
        body: { name: 'elsewhere' },
      }),
      201,
    );
    const stranger = await member('admin', otherWorkspace.id);

    for (const d of ['approve', 'deny'] as const) {
      await expectStatus(decide(plain.token, run.session_id, 'c1', d), 403);
      await expectStatus(decide(suspended.token, run.session_id, 'c1', d), 403);
      await expectStatus(decide(h.api.operatorKey, run.session_id, 'c1', d), 403);
      await expectStatus(decide(run.session_token, run.session_id, 'c1', d), 403);
      await expectStatus(decide(stranger.token, run.session_id, 'c1', d), 404);
    }
    const list = await expectStatus(
      h.api.call('GET', '/v1/approvals?status=pending', { token: plain.token }),
      200,
    );
    assert.equal(
      list.approvals.some((a: any) => a.session_id === run.session_id),
      false,
    );
    const mine = await expectStatus(
      h.api.call('GET', '/v1/approvals?status=pending', { token: h.seed.admin.token }),
      200,
    );
    const listed = mine.approvals.find((a: any) => a.session_id === run.session_id);
    assert.equal(listed.may_decide, true);
    assert.deepEqual(listed.arguments, { command: 'make deploy' });
    const approver = await member('approver');
    await expectStatus(decide(approver.token, run.session_id, 'c1', 'approve'), 200);
  });
});

describe('expiry', () => {
  test("an approval nobody decides expires with the policy's on_timeout, with the same events", async () => {
    const policyId = await policyWith({ approval: { timeout_s: 2, on_timeout: 'allow' } });
    const run = await createRun(h.api, h.seed, { policy_id: policyId });
    await expectStatus(toolCallUntilAnswered(h.api, run, 'c1', bash), 202);
    const answer = await expectStatus(
      h.api.call('GET', `/v1/sessions/${run.session_id}/tool-calls/c1?wait=15`, {
        token: run.session_token,
      }),
      200,
    );
    assert.equal(answer.decision, 'allow');
    assert.match(answer.reason, /expired/);
    const row = await h.db.query(
      'select status, decision, decided_by from approvals where session_id = $1',
      [run.session_id],
    );
    assert.deepEqual(row.rows[0], { status: 'expired', decision: 'allow', decided_by: null });
    assert.deepEqual((await eventTypes(run.session_id)).slice(-2), [
      'approval.decided',
      'tool.decision',
    ]);
    await expectStatus(decide(h.seed.admin.token, run.session_id, 'c1', 'deny'), 409);
  });

  test('decisions racing the expiry: exactly one settles it', async () => {
    const policyId = await policyWith({ approval: { timeout_s: 1, on_timeout: 'deny' } });
    const run = await createRun(h.api, h.seed, { policy_id: policyId });
    const pending = await expectStatus(toolCallUntilAnswered(h.api, run, 'c1', bash), 202);
    const expiresAt = Date.parse(pending.approval.expires_at);
    await new Promise((r) => setTimeout(r, Math.max(0, expiresAt - Date.now() - 30)));
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        (async () => {
          await new Promise((r) => setTimeout(r, i * 5));
          return decide(h.seed.admin.token, run.session_id, 'c1', 'approve');
        })(),
      ),
    );
    assert.ok(answers.filter((a) => a.status === 200).length <= 1);
    await expectStatus(
      h.api.call('GET', `/v1/sessions/${run.session_id}/tool-calls/c1?wait=10`, {
        token: run.session_token,
      }),
      200,
    );
    const types = await eventTypes(run.session_id);
    assert.equal(types.filter((t) => t === 'approval.decided').length, 1);
    assert.equal(types.filter((t) => t === 'tool.decision').length, 1);
  });
});

describe('the compare-and-swap reads the clock at decision', () => {
  test('a decision whose transaction began before the expiry but reaches the row after it is refused; the expiry then settles it', async () => {
    const policyId = await policyWith({ approval: { timeout_s: 600, on_timeout: 'deny' } });
    const run = await createRun(h.api, h.seed, { policy_id: policyId });
    const sessionId = asSessionId(run.session_id);
    const callId = asToolCallId('c1');
    await expectStatus(toolCallUntilAnswered(h.api, run, callId, bash), 202);
    const tx = await h.db.connect();
    try {
      await tx.query('begin');
      // The row is taken, and its expiry brought to 200 ms after this transaction began (the
      // workflow's own timer is ten minutes away): only the clock each statement reads can tell
      // that a decision made after the sleep is late.
      const { rows } = await tx.query<{ before_expiry: boolean }>(
        `update approvals set expires_at = clock_timestamp() + interval '200 milliseconds'
         where session_id = $1 and tool_call_id = $2 and status = 'pending'
         returning now() < expires_at as before_expiry`,
        [sessionId, callId],
      );
      assert.deepEqual(rows, [{ before_expiry: true }], 'the transaction began before the expiry');
      await tx.query('select pg_sleep(0.4)');
      const late = await settleAndRecord(tx, sessionId, callId, {
        by: 'person',
        decision: 'allow',
        decidedBy: h.seed.admin.user_id,
        reason: null,
      });
      assert.equal(late.outcome, 'already_decided');
      const expired = await settleAndRecord(tx, sessionId, callId, { by: 'expiry' });
      assert.equal(expired.outcome, 'decided');
      await tx.query('commit');
    } finally {
      // A failed assertion leaves the transaction open: the connection goes, not back to the pool.
      tx.release(true);
    }
    const row = await h.db.query<{ status: string; late: boolean }>(
      `select status, decided_at >= expires_at as late from approvals
       where session_id = $1 and tool_call_id = $2`,
      [sessionId, callId],
    );
    assert.deepEqual(row.rows[0], { status: 'expired', late: true });
    const answer = await expectStatus(
      h.api.call('GET', `/v1/sessions/${run.session_id}/tool-calls/c1?wait=10`, {
        token: run.session_token,
      }),
      200,
    );
    assert.equal(answer.decision, 'deny');
    assert.match(answer.reason, /expired/);
  });
});

describe('autonomous mode is not a bypass', () => {
  test('require_approval is rewritten to the fallback at once, and the ledger shows both verdicts', async () => {
    for (const fallback of ['allow', 'deny'] as const) {
      const policyId = await policyWith({ autonomous_fallback: fallback });
      const run = await createRun(h.api, h.seed, { policy_id: policyId, autonomy: 'autonomous' });
      const answer = await expectStatus(toolCallUntilAnswered(h.api, run, 'c1', bash), 200);
      assert.equal(answer.decision, fallback);
      assert.match(answer.reason, /autonomous fallback/);
      const approvals = await h.db.query('select 1 from approvals where session_id = $1', [
        run.session_id,
      ]);
      assert.equal(approvals.rows.length, 0);
      const decision = await h.db.query(
        `select data from ledger_events where stream_id = $1 and type = 'tool.decision'`,
        [run.session_id],
      );
      assert.equal(decision.rows[0].data.original_verdict, 'require_approval');
      assert.equal(decision.rows[0].data.verdict, fallback);
    }
  });

  test('an autonomous read_only run still cannot write, whatever the policy says', async () => {
    const policyId = await policyWith({ rules: [{ id: 'all', match: {}, verdict: 'allow' }] });
    const run = await createRun(h.api, h.seed, {
      policy_id: policyId,
      autonomy: 'autonomous',
      source: {
        kind: 'pull_request',
        pull_request: { base_repo: 'acme/app', head_repo: 'mallory/app' },
      },
    });
    assert.equal(run.trust_tier, 'read_only');
    const write = await expectStatus(toolCallUntilAnswered(h.api, run, 'c1', bash), 200);
    assert.equal(write.decision, 'deny');
    assert.equal(write.source, 'trust_tier');
    const read = await expectStatus(
      toolCallUntilAnswered(h.api, run, 'c2', { tool: 'Read', arguments: { file_path: 'a' } }),
      200,
    );
    assert.equal(read.decision, 'allow');
  });
});

describe('fail closed', () => {
  test('a ledger append failing inside the deciding transaction: the approval stays pending, the caller gets an error, a later decision works', async () => {
    const run = await createRun(h.api, h.seed);
    await expectStatus(toolCallUntilAnswered(h.api, run, 'c1', bash), 202);
    const fn = `fail_${run.session_id.replace(/[^a-z0-9]/gi, '_')}`;
    await h.db.query(`create function ${fn}() returns trigger language plpgsql as $$
      begin
        if new.type = 'approval.decided' and new.stream_id = '${run.session_id}' then
          raise exception 'injected ledger failure';
        end if;
        return new;
      end $$`);
    await h.db.query(
      `create trigger ${fn} before insert on ledger_events for each row execute function ${fn}()`,
    );
    try {
      const failed = await decide(h.seed.admin.token, run.session_id, 'c1', 'approve');
      assert.equal(failed.status, 503);
      assert.match(failed.body.detail, /rolled back/);
    } finally {
      await h.db.query(`drop trigger ${fn} on ledger_events`);
      await h.db.query(`drop function ${fn}()`);
    }
    const row = await h.db.query('select status from approvals where session_id = $1', [
      run.session_id,
    ]);
    assert.equal(row.rows[0].status, 'pending');
    const call = await h.db.query('select status from tool_calls where session_id = $1', [
      run.session_id,
    ]);
    assert.equal(call.rows[0].status, 'pending_approval');
    assert.deepEqual(await eventTypes(run.session_id), [
      'run.created',
      'tool.requested',
      'approval.requested',
    ]);

    await expectStatus(decide(h.seed.admin.token, run.session_id, 'c1', 'deny'), 200);
    const answer = await expectStatus(
      h.api.call('GET', `/v1/sessions/${run.session_id}/tool-calls/c1?wait=10`, {
        token: run.session_token,
      }),
      200,
    );
    assert.equal(answer.decision, 'deny');
  });

  test('a decision whose wake-up signal never arrives is still picked up by the re-check', async () => {
    // An API that cannot reach Temporal commits the decision but its signal goes nowhere.
    const cutOff = await startTestApi({ temporal: { address: '127.0.0.1:1' } });
    try {
      const run = await createRun(h.api, h.seed);
      await expectStatus(toolCallUntilAnswered(h.api, run, 'c1', bash), 202);
      const decided = await cutOff.call('POST', `/v1/approvals/${run.session_id}/c1/decision`, {
        token: h.seed.admin.token,
        body: { decision: 'approve' },
      });
      assert.equal(decided.status, 200);
      const state = await h.db.query('select status from approvals where session_id = $1', [
        run.session_id,
      ]);
      assert.equal(state.rows[0].status, 'approved');
      const { rows } = await h.db.query(
        `select count(*)::int as n from ledger_events where stream_id = $1 and type = 'tool.decision'`,
        [run.session_id],
      );
      assert.equal(rows[0].n, 1);
      const started = Date.now();
      const workflowAnswer = await waitForWorkflowResult(run.session_id);
      assert.equal(workflowAnswer.decision, 'allow');
      assert.ok(Date.now() - started < 10_000);
    } finally {
      await cutOff.close();
    }
  });
});

async function waitForWorkflowResult(sessionId: string) {
  const client = testTemporalClient();
  try {
    return (await client.workflow.getHandle(`gate/${sessionId}/c1`).result()) as {
      decision: string;
    };
  } finally {
    await client.connection.close();
  }
}
