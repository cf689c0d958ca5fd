import type { GateDecision } from './vocabulary.js';

/**
 * `failed_closed`: the gate denied while the approval waited (its workflow terminated, a stage
 * that could not go on); nobody decided it.
 */
export type ApprovalStatus = 'pending' | 'approved' | 'denied' | 'expired' | 'failed_closed';
export type Authority = 'owner' | 'workspace_approvers';

/** What a person or the expiry settling an approval produced: enough to build the call's answer. */
export interface SettledApproval {
  status: Exclude<ApprovalStatus, 'pending' | 'failed_closed'>;
  decision: 'allow' | 'deny';
  rule_id: string | null;
  decided_by: string | null;
  decided_by_name: string | null;
  reason: string | null;
}

/** The final answer of a call whose approval was settled by a person or by expiry. */
export function decisionFromApproval(approval: SettledApproval): GateDecision {
  const ruleId = approval.rule_id ? { rule_id: approval.rule_id } : {};
  const who = approval.decided_by_name ?? 'an approver';
  const settled =
    approval.status === 'expired'
      ? `the approval expired; the policy's on_timeout is ${approval.decision}`
      : `${approval.status} by ${who}`;
  const reason = approval.reason ? `${settled}: ${approval.reason}` : settled;
  // The approver's reason is theirs to give the runner; the ledger keeps it as a digest only.
  const trail = {
    stage: 'approval' as const,
    ledger_reason: settled,
    verdict: 'require_approval',
    original_verdict: 'require_approval',
    ...(approval.decided_by && { decided_by: approval.decided_by }),
  };
  if (approval.decision === 'allow') {
    return { answer: { status: 'decided', decision: 'allow', reason, ...ruleId }, ...trail };
  }
  return {
    answer: { status: 'decided', decision: 'deny', source: 'approval', reason, ...ruleId },
    ...trail,
  };
}

/** Who may decide, given the decider's membership. The operator key is not a member: it decides nothing. */
export function mayDecide(
  approval: { authority: Authority; owner_user_id: string | null; workspace_id: string },
  member: { id: string; workspace_id: string; role: string; status: string },
): boolean {
  if (member.status !== 'active' || member.workspace_id !== approval.workspace_id) return false;
  // A personal connection is one person's custody of their own credential: no role overrides it.
  if (approval.authority === 'owner') return member.id === approval.owner_user_id;
  return member.role === 'approver' || member.role === 'admin';
}

/** Whether a member is offered an approval to decide: still pending, and within their authority. */
export function offeredTo(
  approval: {
    status: ApprovalStatus;
    authority: Authority;
    owner_user_id: string | null;
    workspace_id: string;
  },
  member: { id: string; workspace_id: string; role: string; status: string },
): boolean {
  return approval.status === 'pending' && mayDecide(approval, member);
}

/**
 * Whether a member may read a call's arguments (they may hold what only its owner should see):
 * those with authority to decide it, and the member who invoked the run. A suspended member
 * reads nothing.
 */
export function seesArguments(
  approval: { authority: Authority; owner_user_id: string | null; workspace_id: string },
  member: { id: string; workspace_id: string; role: string; status: string },
  invokedBy: string | undefined,
): boolean {
  if (member.status !== 'active' || member.workspace_id !== approval.workspace_id) return false;
  return mayDecide(approval, member) || member.id === invokedBy;
}

/**
 * Whether a member may read a recorded call's arguments: only as its approval shows them (the
 * rule above). A call no person was asked about was never shown to anyone: none reads it.
 */
export function readsCallArguments(
  approval:
    { authority: Authority; owner_user_id: string | null; workspace_id: string } | undefined,
  member: { id: string; workspace_id: string; role: string; status: string },
  invokedBy: string | undefined,
): boolean {
  return approval !== undefined && seesArguments(approval, member, invokedBy);
}
