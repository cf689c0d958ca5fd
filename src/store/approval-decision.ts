import { offeredScope, type ScopeKind } from '../domain/approvals/grant-scopes.js';
import { mayDecide } from '../domain/gate/approval.js';
import type { SessionId, ToolCallId } from '../domain/gate/ids.js';
import type { DecidedAnswer } from '../domain/gate/vocabulary.js';
import { createGrant } from './approval-grants.js';
import { settleAndRecord } from './approval-settlement.js';
import { findApproval, type ApprovalRow } from './approvals.js';
import { lockMember, type Member } from './members.js';
import { withTransaction, type Pool } from './pool.js';
import { findRunRevocation } from './run-revocations.js';

export type ApprovalDecision =
  | { outcome: 'decided'; approval: ApprovalRow; answer: DecidedAnswer; grant?: { id: string } }
  /** A standing approval was asked for where the gate offers none (a deny, an uncertain command). */
  | { outcome: 'grant_not_offered' }
  | { outcome: 'already_decided'; approval: ApprovalRow }
  | { outcome: 'run_revoked'; approval: ApprovalRow }
  | { outcome: 'forbidden' }
  | { outcome: 'not_found' };

/** Who decides, and what. `reason` is the approver's own words, kept as they wrote them. */
export interface DecisionRequest {
  member: Member;
  sessionId: SessionId;
  toolCallId: ToolCallId;
  decision: 'allow' | 'deny';
  reason: string | null;
  /**
   * Approve, and allow the same for the rest of the run (`for_s` null) or for a while: this call
   * exactly, unless the approver picked a wider scope the gate offers.
   */
  grant?: { for_s: number | null; scope?: ScopeKind };
}

/**
 * A person's decision, in one transaction: authority against the member as locked in it, the
 * run's revocation, then the compare-and-swap with approval.decided and tool.decision, and the
 * standing approval given with it (the grant commits with its approval, or neither does).
 */
export function settleAsPerson(pool: Pool, request: DecisionRequest): Promise<ApprovalDecision> {
  const { member, sessionId, toolCallId } = request;
  return withTransaction(pool, async (tx) => {
    const approval = await findApproval(tx, sessionId, toolCallId);
    if (approval?.workspace_id !== member.workspace_id) return { outcome: 'not_found' as const };
    const current = await lockMember(tx, member.id);
    if (!current || !mayDecide(approval, current)) return { outcome: 'forbidden' as const };
    // A revoked run's calls are decided no more (its revocation denied what was pending).
    if (await findRunRevocation(tx, approval.run_id))
      return { outcome: 'run_revoked' as const, approval };
    const scope =
      request.grant && offeredScope(approval.tool, approval.arguments, request.grant.scope);
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
    const grant = await createGrant(tx, {
      run_id: approval.run_id,
      workspace_id: approval.workspace_id,
      scope,
      asked: { rule_id: approval.rule_id, policy_version: approval.policy_version },
      granted_by: member.id,
      session_id: sessionId,
      tool_call_id: toolCallId,
      for_s: request.grant.for_s,
    });
    return { ...settled, grant: { id: grant.id } };
  });
}
