import type { SessionId, ToolCallId } from '../domain/gate/ids.js';
import type {
  DecidedAnswer,
  GateRequest,
  PendingAnswer,
  PolicyRuling,
} from '../domain/gate/vocabulary.js';
import { policyTrailFacts } from '../domain/ledger/redaction.js';
import { requestApprovalRecord } from '../store/approval-request.js';
import { settleExpiredApproval } from '../store/approval-settlement.js';
import { findApproval, type ApprovalRow } from '../store/approvals.js';
import type { Pool } from '../store/pool.js';
import { findToolCall } from '../store/tool-calls.js';
import type { AnswerRecorded } from './decision.js';
import type { FrozenRuns } from './frozen-runs.js';
import { startApprovalDeliveries } from './webhook-delivery.js';

export type ApprovalState =
  { status: 'pending'; expires_at: string } | { status: 'decided'; answer: DecidedAnswer };

function pendingAnswer(publicUrl: string, row: ApprovalRow): PendingAnswer {
  return {
    status: 'pending_approval',
    approval: {
      url: `${publicUrl}/approvals/${encodeURIComponent(row.session_id)}/${encodeURIComponent(row.tool_call_id)}`,
      expires_at: row.expires_at.toISOString(),
    },
  };
}

async function decidedAnswer(
  pool: Pool,
  row: ApprovalRow,
): Promise<ApprovalState & { status: 'decided' }> {
  const call = await findToolCall(pool, row.session_id, row.tool_call_id);
  if (call?.answer?.status !== 'decided')
    throw new Error('a settled approval has no recorded answer');
  return { status: 'decided', answer: call.answer };
}

export function approvalActivities(
  pool: Pool,
  frozen: FrozenRuns,
  publicUrl: string,
  onRecorded: AnswerRecorded = () => undefined,
) {
  /**
   * Writes the pending approval (once) with approval.requested, and starts its notices. Who may
   * decide is fixed here: the personal connection's owner, or the workspace's approvers.
   */
  async function requestApproval(
    request: GateRequest,
    policy: PolicyRuling,
  ): Promise<PendingAnswer> {
    const { run, called } = await frozen.call(request);
    const owner = called.frozen?.binding?.owner_user_id ?? null;
    const pending = await requestApprovalRecord(
      pool,
      {
        session_id: request.session_id,
        tool_call_id: request.tool_call_id,
        run_id: run.id,
        workspace_id: run.workspace_id,
        tool: request.tool,
        arguments: request.arguments,
        rule_id: policy.rule_id,
        policy_version: policy.policy_version,
        authority: owner ? 'owner' : 'workspace_approvers',
        owner_user_id: owner,
        on_timeout: policy.approval.on_timeout,
        timeout_s: policy.approval.timeout_s,
      },
      (row) => pendingAnswer(publicUrl, row),
      policyTrailFacts(policy),
    );
    // Handed over only when this transaction is what made the call's record read pending.
    if (pending.marked) onRecorded(request, pending.answer);
    await startApprovalDeliveries(
      pool,
      request.session_id,
      request.tool_call_id,
      'approval.requested',
    );
    return pending.answer;
  }

  /** A decided approval's notices go out once the workflow sees it (whoever decided it). */
  async function decided(
    state: ApprovalState & { status: 'decided' },
    sessionId: SessionId,
    toolCallId: ToolCallId,
  ) {
    await startApprovalDeliveries(pool, sessionId, toolCallId, 'approval.decided');
    return state;
  }

  /** Reads the row: the only source of truth for a decision. Signals merely wake the reader. */
  async function checkApproval(
    sessionId: SessionId,
    toolCallId: ToolCallId,
  ): Promise<ApprovalState> {
    const row = await findApproval(pool, sessionId, toolCallId);
    if (!row) throw new Error(`approval ${sessionId}/${toolCallId} does not exist`);
    if (row.status === 'pending')
      return { status: 'pending', expires_at: row.expires_at.toISOString() };
    return decided(await decidedAnswer(pool, row), sessionId, toolCallId);
  }

  /** Settles an expired approval with the policy's on_timeout, by the same compare-and-swap as a person. */
  async function expireApproval(
    sessionId: SessionId,
    toolCallId: ToolCallId,
  ): Promise<ApprovalState> {
    const settlement = await settleExpiredApproval(pool, sessionId, toolCallId);
    if (settlement.outcome === 'decided')
      return decided({ status: 'decided', answer: settlement.answer }, sessionId, toolCallId);
    return checkApproval(sessionId, toolCallId);
  }

  return { requestApproval, checkApproval, expireApproval };
}
