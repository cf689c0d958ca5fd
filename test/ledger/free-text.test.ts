/**
 * Free text others write reaches the ledger only as a digest and a length: a tool name the run
 * never froze, an approver's reason.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { describe, test } from 'vitest';
import { digestOf } from '../../src/domain/ledger/digest.js';
import { useHarness } from '../support/harness.js';
import { createRun, defaultPolicy, expectStatus, toolCallUntilAnswered } from '../support/seed.js';

const h = useHarness({
  api: { approvalRecheckS: 1 },
  policy: {
    ...defaultPolicy,
    name: 'ask-for-bash',
    rules: [
      { id: 'reads', match: { effect: 'read' }, verdict: 'allow' },
      { id: 'ask', match: { tool: 'Bash' }, verdict: 'require_approval' },
    ],
  },
});

const canary = (what: string) => `canary-${what}-${randomBytes(12).toString('hex')}`;

interface LedgerView {
  /** The table's rows and the events API's answer, as text: where a canary must not be. */
  text: string;
  events: { type: string; data: Record<string, unknown> }[];
}

/** The session's ledger as the table holds it and as the events API shows it. */
async function ledgerOf(sessionId: string, token: string): Promise<LedgerView> {
  const rows = await h.db.query('select * from ledger_events where stream_id = $1', [sessionId]);
  const api = await expectStatus(
    h.api.call('GET', `/v1/sessions/${sessionId}/events?after=0`, { token }),
    200,
  );
  return { text: JSON.stringify(rows.rows) + JSON.stringify(api), events: api.events };
}

const dataOf = (ledger: LedgerView, type: string) =>
  ledger.events.filter((e) => e.type === type).map((e) => e.data);

describe('free text written by others', () => {
  test('a canary in a tool name the run never froze: the runner reads it back, the ledger keeps its digest and length', async () => {
    const run = await createRun(h.api, h.seed);
    const name = `${canary('tool')}-${'x'.repeat(150)}`;
    const answer = await expectStatus(
      toolCallUntilAnswered(h.api, run, randomUUID(), { tool: name, arguments: {} }),
      200,
    );
    assert.equal(answer.source, 'capability');
    assert.ok(answer.reason.includes(name), 'the runner is told which name was refused');

    const ledger = await ledgerOf(run.session_id, run.session_token);
    assert.ok(!ledger.text.includes(name.slice(0, 40)), 'the name reached the ledger');
    for (const type of ['tool.requested', 'tool.decision']) {
      const [data] = dataOf(ledger, type);
      assert.ok(data, type);
      assert.equal(data.tool, undefined, type);
      assert.equal(data.tool_digest, digestOf(name), type);
      assert.equal(data.tool_length, name.length, type);
    }
  });

  test("a canary in an approver's reason: the runner reads it, the ledger keeps its digest and length", async () => {
    const run = await createRun(h.api, h.seed);
    const id = randomUUID();
    await expectStatus(
      toolCallUntilAnswered(h.api, run, id, { tool: 'Bash', arguments: { command: 'x' } }),
      202,
    );
    const reason = `${canary('reason')} do it`;
    await expectStatus(
      h.api.call('POST', `/v1/approvals/${run.session_id}/${id}/decision`, {
        token: h.seed.admin.token,
        body: { decision: 'approve', reason },
      }),
      200,
    );
    const decided = await expectStatus(
      h.api.call('GET', `/v1/sessions/${run.session_id}/tool-calls/${id}?wait=10`, {
        token: run.session_token,
      }),
      200,
    );
    assert.equal(decided.decision, 'allow');
    assert.ok(decided.reason.includes(reason), 'the runner reads the reason');

    const ledger = await ledgerOf(run.session_id, run.session_token);
    assert.ok(
      !ledger.text.includes(reason.slice(0, 30)),
      "the approver's reason reached the ledger",
    );
    const [approval] = dataOf(ledger, 'approval.decided');
    assert.ok(approval);
    assert.equal(approval.reason, undefined);
    assert.equal(approval.reason_digest, digestOf(reason));
    assert.equal(approval.reason_length, reason.length);
    const decisions = dataOf(ledger, 'tool.decision');
    assert.deepEqual(
      decisions.map((d) => d.reason),
      ['approved by ana'],
    );
    // A frozen tool's name is the operator's, not free text: it stays readable.
    assert.equal(decisions[0]?.tool, 'Bash');
  });
});
