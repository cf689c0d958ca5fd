import type { PendingAnswer } from '../domain/gate/vocabulary.js';
import { redact, type PolicyTrailFacts } from '../domain/ledger/redaction.js';
import { insertApproval, type ApprovalRow, type NewApproval } from './approvals.js';
import { appendEvent } from './ledger.js';
import { withTransaction, type Pool } from './pool.js';
import { denyForRevocation, findRunRevocation } from './run-revocations.js';
import { recordPendingApproval } from './tool-calls.js';
import { enqueueApprovalNotices } from './webhooks.js';

/** A call's pending answer, and whether this request is what made its record read pending. */
interface RequestedApproval {
  answer: PendingAnswer;
  marked: boolean;
}

/**
 * Writes the pending approval (once), marks the call pending and emits approval.requested with
 * its notices, in one transaction. A run revoked while its call was evaluated has the approval
 * denied at once: nobody may decide it (the revocation's lock on the run orders the two
 * transactions; one of them sees the other).
 */
export function requestApprovalRecord(
  pool: Pool,
  approval: NewApproval,
  pendingAnswer: (row: ApprovalRow) => PendingAnswer,
  trail: PolicyTrailFacts = {},
): Promise<RequestedApproval> {
  return withTransaction(pool, async (tx) => {
    const { row, created } = await insertApproval(tx, approval);
    const answer = pendingAnswer(row);
    if (!created) return { answer, marked: false };
    const { session_id: sessionId, tool_call_id: toolCallId } = row;
    const marked = await recordPendingApproval(tx, sessionId, toolCallId, answer);
    await appendEvent(
      tx,
      sessionId,
      redact('approval.requested', {
        tool_call_id: toolCallId,
        tool: row.tool,
        rule_id: row.rule_id,
        expires_at: answer.approval.expires_at,
        ...trail,
      }),
    );
    await enqueueApprovalNotices(tx, 'approval.requested', row, answer.approval.url);
    if (await findRunRevocation(tx, row.run_id)) await denyForRevocation(tx, sessionId, toolCallId);
    return { answer, marked };
  });
}
