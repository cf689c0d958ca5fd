import type pg from 'pg';
import { decisionFromApproval, type SettledApproval } from '../domain/gate/approval.js';
import type { DecidedAnswer, GateDecision } from '../domain/gate/vocabulary.js';
import { toolDecisionEvent } from '../domain/gate/decision-event.js';
import { foreign, redact } from '../domain/ledger/redaction.js';
import type { SessionId, ToolCallId } from '../domain/gate/ids.js';
import {
  findApproval,
  settleApproval,
  type ApprovalRow,
  type ApprovalSettler,
} from './approvals.js';
import { appendEvent } from './ledger.js';
import { withTransaction, type Pool } from './pool.js';
import { recordToolCallDecision } from './tool-calls.js';
import { enqueueApprovalNotices } from './webhooks.js';

export type Settlement =
  | { outcome: 'decided'; approval: ApprovalRow; answer: DecidedAnswer }
  | { outcome: 'already_decided'; approval: ApprovalRow }
  | { outcome: 'not_found' };

/** Who settles: a person, the expiry, or the gate with the deny it reached without a person. */
type Settler =
  | Exclude<ApprovalSettler, { by: 'gate' }>
  | { by: 'gate'; decision: GateDecision & { answer: { decision: 'deny' } } };

/**
 * Settles an approval inside the caller's transaction: the compare-and-swap on the row, the
 * call's final answer, and approval.decided + tool.decision in the ledger. Only the winner
 * writes anything; if any part fails, the transaction rolls back and the approval stays
 * pending (fail closed).
 */
export async function settleAndRecord(
  tx: pg.PoolClient,
  sessionId: SessionId,
  toolCallId: ToolCallId,
  settle: Settler,
  decidedByName: string | null = null,
): Promise<Settlement> {
  const settled = await settleApproval(
    tx,
    sessionId,
    toolCallId,
    settle.by === 'gate'
      ? { by: 'gate', reason: settle.decision.ledger_reason ?? settle.decision.answer.reason }
      : settle,
  );
  if (!settled || settled.decision === null || settled.status === 'pending') {
    const current = await findApproval(tx, sessionId, toolCallId);
    return current ? { outcome: 'already_decided', approval: current } : { outcome: 'not_found' };
  }
  const decision =
    settle.by === 'gate'
      ? settle.decision
      : decisionFromApproval({
          // A person's compare-and-swap sets approved or denied, the expiry's expired.
          status: settled.status as SettledApproval['status'],
          decision: settled.decision,
          rule_id: settled.rule_id,
          decided_by: settled.decided_by,
          decided_by_name: decidedByName,
          reason: settled.reason,
        });
  const answer = await recordToolCallDecision(tx, sessionId, toolCallId, decision.answer);
  await appendEvent(
    tx,
    sessionId,
    redact('approval.decided', {
      tool_call_id: toolCallId,
      outcome: settled.status,
      decision: settled.decision,
      decided_by: settled.decided_by,
      reason: settled.reason === null ? null : foreign(settled.reason),
    }),
  );
  await appendEvent(
    tx,
    sessionId,
    toolDecisionEvent({ tool_call_id: toolCallId, tool: settled.tool }, decision, answer),
  );
  await enqueueApprovalNotices(tx, 'approval.decided', settled);
  return { outcome: 'decided', approval: settled, answer };
}

/** Settles an expired approval with the policy's on_timeout, in a transaction of its own. */
export function settleExpiredApproval(
  pool: Pool,
  sessionId: SessionId,
  toolCallId: ToolCallId,
): Promise<Settlement> {
  return withTransaction(pool, (tx) =>
    settleAndRecord(tx, sessionId, toolCallId, { by: 'expiry' }),
  );
}
