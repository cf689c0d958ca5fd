import { offeredScope } from '../domain/approvals/grants.js';
import { mayDecide } from '../domain/gate/approval.js';
import { createGrant } from '../store/approval-grants.js';
import type { SessionId, ToolCallId } from '../domain/gate/ids.js';
import type { DecidedAnswer } from '../domain/gate/vocabulary.js';
import { settleAndRecord } from '../store/approval-settlement.js';
import { findApproval, type ApprovalRow } from '../store/approvals.js';
import { lockMember, type Member } from '../store/members.js';
import { withTransaction, type Pool } from '../store/pool.js';
import { findRunRevocation } from '../store/run-revocations.js';
import type { GateWorkflowClient } from '../temporal/gate-workflow-client.js';

export type ApprovalDecision =
  | { outcome: 'decided'; approval: ApprovalRow; answer: DecidedAnswer; grant?: { id: string } }
  /** A standing approval was asked for where the gate offers none (a deny, an uncertain command). */
  | { outcome: 'grant_not_offered' }
  | { outcome: 'already_decided'; approval: ApprovalRow }
  | { outcome: 'run_revoked'; approval: ApprovalRow }
  | { outcome: 'forbidden' }
  | { outcome: 'not_found' };

/** The decision and its ledger entries commit together or not at all: nothing was recorded. */
export class DecisionNotRecordedError extends Error {
  override name = 'DecisionNotRecordedError';
  constructor(cause: unknown) {
    super('the decision could not be recorded and was rolled back; the approval is still pending', {
      cause,
    });
  }
}

/** Who decides, and what. `reason` is the approver's own words, kept as they wrote them. */
export interface DecisionRequest {
  member: Member;
  sessionId: SessionId;
  toolCallId: ToolCallId;
  decision: 'allow' | 'deny';
  reason: string | null;
  /** Approve, and allow the same for the rest of the run (`for_s` null) or for a while. */
  grant?: { for_s: number | null };
}

/** Authority against the member as locked in the deciding transaction, then the compare-and-swap. */
async function settleAsPerson(pool: Pool, request: DecisionRequest): Promise<ApprovalDecision> {
  const { member, sessionId, toolCallId } = request;
  return withTransaction(pool, async (tx) => {
    const approval = await findApproval(tx, sessionId, toolCallId);
    if (approval?.workspace_id !== member.workspace_id) return { outcome: 'not_found' as const };
    const current = await lockMember(tx, member.id);
    if (!current || !mayDecide(approval, current)) return { outcome: 'forbidden' as const };
    // A revoked run's calls are decided no more (its revocation denied what was pending).
    if (await findRunRevocation(tx, approval.run_id))
      return { outcome: 'run_revoked' as const, approval };
    const scope = request.grant && offeredScope(approval.tool, approval.arguments);
    if (request.grant && (request.decision !== 'allow' || !scope))
      return { outcome: 'grant_not_offered' as const };
    const settle = {
      by: 'person' as const,
      decision: request.decision,
      decidedBy: member.id,
      reason: request.reason,
    };
    const settled = await settleAndRecord(tx, sessionId, toolCallId, settle, member.name);
    if (settled.outcome !== 'decided' || !request.grant || !scope) return settled;
    // The grant commits with the approval it is given with, or neither does.
    const grant = await createGrant(tx, {
      run_id: approval.run_id,
      workspace_id: approval.workspace_id,
      scope,
      granted_by: member.id,
      session_id: sessionId,
      tool_call_id: toolCallId,
      for_s: request.grant.for_s,
    });
    return { ...settled, grant: { id: grant.id } };
  });
}

/** Runs a settlement; any failure means nothing was recorded (the transaction rolled back). */
async function recorded<T>(settle: () => Promise<T>): Promise<T> {
  try {
    return await settle();
  } catch (err) {
    throw new DecisionNotRecordedError(err);
  }
}

/**
 * A member decides one approval. Exactly one of any number of concurrent deciders wins; the
 * others learn the final state. An approval found past its expiry is settled as expired, the
 * same way the workflow would. The winner wakes the paused workflow.
 */
export async function decideApproval(
  deps: { pool: Pool; gate: GateWorkflowClient },
  request: DecisionRequest,
): Promise<ApprovalDecision> {
  const { sessionId, toolCallId } = request;
  const settled = await recorded(() => settleAsPerson(deps.pool, request));
  if (settled.outcome === 'decided') deps.gate.wake(sessionId, toolCallId);
  if (settled.outcome !== 'already_decided' || settled.approval.status !== 'pending')
    return settled;
  // Still pending, yet too late for a person: the expiry wins, settled as the workflow would.
  const expired = await recorded(() =>
    withTransaction(deps.pool, (tx) =>
      settleAndRecord(tx, sessionId, toolCallId, { by: 'expiry' }),
    ),
  );
  if (expired.outcome !== 'decided') return expired;
  deps.gate.wake(sessionId, toolCallId);
  return { outcome: 'already_decided', approval: expired.approval };
}
