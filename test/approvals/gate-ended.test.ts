/**
 * A gate that denies while its call waits on a person (its workflow terminated by an operator, a
 * stage that cannot go on) answers the runner with a deny it records, and settles the approval
 * with it: a person deciding afterwards is told it was decided, and whichever of the two comes
 * first, the approval, the call and the ledger agree.
 */
import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, test } from 'vitest';
import type { Client } from '@temporalio/client';
import { failedClosed } from '../../src/domain/gate/decisions.js';
import { asSessionId, asToolCallId, gateWorkflowId } from '../../src/domain/gate/ids.js';
import { recordDecision } from '../../src/store/decisions.js';
import { useHarness } from '../support/harness.js';
import {
  askForBash,
  createRun,
  expectStatus,
  type CreatedRun,
  toolCallUntilAnswered,
} from '../support/seed.js';
import { useStorePool } from '../support/store-pool.js';
import { terminateGate, testTemporalClient } from '../support/temporal.js';

const h = useHarness({
  api: { approvalRecheckS: 1 },
  // An on_timeout of allow: the deny below is the gate's, never the policy's timeout.
  policy: { ...askForBash, approval: { timeout_s: 600, on_timeout: 'allow' } },
});
const store = useStorePool();
let temporal: Client;
beforeAll(() => {
  temporal = testTemporalClient();
});
afterAll(async () => {
  await temporal.connection.close();
});

const bash = { tool: 'Bash', arguments: { command: 'make deploy' } };
const terminated = 'the gate workflow was terminated';

async function pausedCall(run: CreatedRun, callId: string) {
  const pending = await expectStatus(toolCallUntilAnswered(h.api, run, callId, bash), 202);
  assert.equal(pending.status, 'pending_approval');
}

const terminate = (run: CreatedRun, callId: string) =>
  terminateGate(temporal, run.session_id, callId);

const waitFor = (run: CreatedRun, callId: string, waitS: number) =>
  h.api.call('GET', `/v1/sessions/${run.session_id}/tool-calls/${callId}?wait=${waitS}`, {
    token: run.session_token,
  });

const approve = (run: CreatedRun, callId: string) =>
  h.api.call('POST', `/v1/approvals/${run.session_id}/${callId}/decision`, {
    token: h.seed.admin.token,
    body: { decision: 'approve' },
  });

/** What the approval, the call's record and its ledger events say about one call. */
async function recorded(run: CreatedRun, callId: string) {
  const approval = await h.db.query<{ status: string; decision: string; decided_by: string }>(
    'select status, decision, decided_by from approvals where session_id = $1 and tool_call_id = $2',
    [run.session_id, callId],
  );
  const call = await h.db.query<{ decision: string; source: string | null }>(
    'select decision, source from tool_calls where session_id = $1 and tool_call_id = $2',
    [run.session_id, callId],
  );
  const events = await h.db.query<{ type: string; data: Record<string, unknown> }>(
    `select type, data from ledger_events
     where stream_id = $1 and data->>'tool_call_id' = $2
       and type in ('approval.decided', 'tool.decision')
     order by seq`,
    [run.session_id, callId],
  );
  return { approval: approval.rows[0], call: call.rows[0], events: events.rows };
}

/** One approval.decided and one tool.decision, saying what the approval row and the call say. */
async function assertAgreement(run: CreatedRun, callId: string) {
  const { approval, call, events } = await recorded(run, callId);
  assert.ok(approval && call);
  assert.notEqual(approval.status, 'pending');
  assert.equal(call.decision, approval.decision);
  assert.deepEqual(
    events.map((e) => e.type),
    ['approval.decided', 'tool.decision'],
  );
  const [decided, decision] = events;
  assert.ok(decided && decision);
  assert.equal(decided.data.outcome, approval.status);
  assert.equal(decided.data.decision, approval.decision);
  assert.equal(decision.data.decision, approval.decision);
  return { approval, call, decision: decision.data };
}

describe('a gate workflow terminated while its call waits on a person', () => {
  test('answers its waiting runner with a deny by the approval stage, recorded once, the approval failed_closed', async () => {
    const run = await createRun(h.api, h.seed);
    await pausedCall(run, 'c1');
    // A runner already waiting when the operator terminates the gate is answered when its
    // wait ends, not told "pending" again.
    const waiting = waitFor(run, 'c1', 3);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await terminate(run, 'c1');
    const answer = await expectStatus(waiting, 200);
    assert.deepEqual(answer, {
      status: 'decided',
      decision: 'deny',
      source: 'approval',
      reason: terminated,
    });

    const { approval, decision } = await assertAgreement(run, 'c1');
    assert.deepEqual(approval, { status: 'failed_closed', decision: 'deny', decided_by: null });
    assert.equal(decision.stage, 'approval');
    assert.equal(decision.reason, terminated);

    // Asked again, by a re-sent PUT or another wait, the runner gets the same deny at once.
    assert.deepEqual(
      await expectStatus(toolCallUntilAnswered(h.api, run, 'c1', bash), 200),
      answer,
    );
    assert.deepEqual(await expectStatus(waitFor(run, 'c1', 60), 200), answer);
    // A person deciding afterwards is told it was decided, and by what.
    const late = await expectStatus(approve(run, 'c1'), 409);
    assert.equal(late.outcome, 'already_decided');
    assert.equal(late.final.status, 'failed_closed');
    assert.equal(late.final.decision, 'deny');
    assert.equal(late.final.decided_by, null);
    await assertAgreement(run, 'c1');
  });

  test('a wait that begins after the termination answers at once, not at the end of its wait', async () => {
    const run = await createRun(h.api, h.seed);
    await pausedCall(run, 'c1');
    await terminate(run, 'c1');
    const started = Date.now();
    const answer = await expectStatus(waitFor(run, 'c1', 60), 200);
    assert.equal(answer.reason, terminated);
    assert.ok(Date.now() - started < 30_000, 'answered long before the 60 s wait ended');
    const again = await expectStatus(waitFor(run, 'c1', 0), 200);
    assert.deepEqual(again, answer);
  });

  test('a re-sent PUT is the first to ask: it records the same deny, and the approval is settled', async () => {
    const run = await createRun(h.api, h.seed);
    await pausedCall(run, 'c1');
    await terminate(run, 'c1');
    const answer = await expectStatus(toolCallUntilAnswered(h.api, run, 'c1', bash), 200);
    assert.deepEqual(answer, {
      status: 'decided',
      decision: 'deny',
      source: 'approval',
      reason: terminated,
    });
    const { approval } = await assertAgreement(run, 'c1');
    assert.equal(approval.status, 'failed_closed');
    await expectStatus(approve(run, 'c1'), 409);
  });

  test('a person approving as the runner learns of the termination: one of them decides, and the approval, the call and the ledger agree', async () => {
    const run = await createRun(h.api, h.seed);
    const calls = Array.from({ length: 8 }, (_, i) => `c${i}`);
    for (const id of calls) await pausedCall(run, id);
    for (const id of calls) await terminate(run, id);
    const outcomes = await Promise.all(
      calls.map(async (id) => {
        const [runner, person] = await Promise.all([waitFor(run, id, 0), approve(run, id)]);
        return { id, runner, person };
      }),
    );
    for (const { id, runner, person } of outcomes) {
      const { approval } = await assertAgreement(run, id);
      assert.equal(runner.status, 200);
      if (person.status === 200) {
        assert.equal(approval.status, 'approved');
        assert.equal(runner.body.decision, 'allow');
      } else {
        assert.equal(person.status, 409);
        assert.equal(approval.status, 'failed_closed');
        assert.equal(runner.body.decision, 'deny');
        assert.equal(person.body.final.status, 'failed_closed');
      }
    }
  });
});

describe('an approval decided after the gate recorded a fail-closed deny', () => {
  // What the workflow's recorder does when a stage cannot go on during the pause (the approval
  // row could not be read past its expiry, or settled): a deny of the approval stage.
  const stageFailure = failedClosed('approval', 'the state of record did not answer');
  const recordFailClosed = (run: CreatedRun, callId: string) =>
    recordDecision(
      store.pool,
      { session_id: asSessionId(run.session_id), tool_call_id: asToolCallId(callId), tool: 'Bash' },
      stageFailure,
    );

  test('is refused with 409 already_decided and the recorded deny; the runner gets that deny', async () => {
    const run = await createRun(h.api, h.seed);
    await pausedCall(run, 'c1');
    const denied = await recordFailClosed(run, 'c1');
    assert.equal(denied.decision, 'deny');
    assert.equal(denied.source, 'approval');
    const late = await expectStatus(approve(run, 'c1'), 409);
    assert.deepEqual(
      { outcome: late.outcome, status: late.final.status, decision: late.final.decision },
      { outcome: 'already_decided', status: 'failed_closed', decision: 'deny' },
    );
    const { approval, decision } = await assertAgreement(run, 'c1');
    assert.equal(approval.status, 'failed_closed');
    assert.equal(decision.reason, stageFailure.ledger_reason);
    // The paused workflow re-reads its row, finds it settled, and ends with the same deny.
    const workflow = temporal.workflow.getHandle(
      gateWorkflowId(asSessionId(run.session_id), asToolCallId('c1')),
    );
    assert.deepEqual(await workflow.result(), denied);
    assert.deepEqual(await expectStatus(waitFor(run, 'c1', 0), 200), denied);
  });

  test('the other order: a person decided first, and the fail-closed deny then records nothing of its own', async () => {
    const run = await createRun(h.api, h.seed);
    await pausedCall(run, 'c1');
    await expectStatus(approve(run, 'c1'), 200);
    const answer = await recordFailClosed(run, 'c1');
    assert.equal(answer.decision, 'allow');
    const { approval } = await assertAgreement(run, 'c1');
    assert.equal(approval.status, 'approved');
  });

  test('both racing, on many calls: exactly one of the two decides each, and the approval, the call and the ledger agree', async () => {
    const run = await createRun(h.api, h.seed);
    const calls = Array.from({ length: 12 }, (_, i) => `c${i}`);
    for (const id of calls) await pausedCall(run, id);
    const outcomes = await Promise.all(
      calls.map(async (id, i) => {
        // Half the races give the person a head start, half the gate.
        const [person, gate] = await Promise.all([
          new Promise((r) => setTimeout(r, i % 2)).then(() => approve(run, id)),
          new Promise((r) => setTimeout(r, 1 - (i % 2))).then(() => recordFailClosed(run, id)),
        ]);
        return { id, person, gate };
      }),
    );
    for (const { id, person, gate } of outcomes) {
      const { approval } = await assertAgreement(run, id);
      if (person.status === 200) {
        assert.equal(approval.status, 'approved');
        assert.equal(gate.decision, 'allow');
      } else {
        assert.equal(person.status, 409);
        assert.equal(approval.status, 'failed_closed');
        assert.equal(gate.decision, 'deny');
      }
    }
  });
});
