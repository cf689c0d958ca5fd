import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { mayDecide } from '../../domain/gate/approval.js';
import { inReadingOrder } from '../../domain/gate/vocabulary.js';
import { asSessionId, asToolCallId, gateWorkflowId } from '../../domain/gate/ids.js';
import { settleAndRecord, type Settlement } from '../../store/approval-settlement.js';
import { findApproval, listPendingApprovalsFor, type ApprovalRow } from '../../store/approvals.js';
import { lockMember, type Member } from '../../store/members.js';
import { withTransaction } from '../../store/pool.js';
import { approvalDecidedSignal } from '../../workflows/messages.js';
import type { ApiContext } from '../context.js';
import { Problem, notFound } from '../problem.js';
import { validate } from '../validation.js';
import { externalId } from './runs.js';

const approvalParams = z.object({ session_id: externalId, tool_call_id: externalId }).strict();
const listQuery = z.object({ status: z.literal('pending').default('pending') }).strict();
const decisionBody = z
  .object({ decision: z.enum(['approve', 'deny']), reason: z.string().trim().max(1000).optional() })
  .strict();

export function approvalView(row: ApprovalRow, member: Member) {
  return {
    session_id: row.session_id,
    tool_call_id: row.tool_call_id,
    run_id: row.run_id,
    workspace: row.workspace_id,
    tool: row.tool,
    arguments: row.arguments,
    rule_id: row.rule_id,
    policy_version: row.policy_version,
    authority: row.authority,
    owner_user_id: row.owner_user_id,
    status: row.status,
    decision: row.decision,
    decided_by: row.decided_by,
    reason: row.reason,
    requested_at: row.requested_at,
    expires_at: row.expires_at,
    decided_at: row.decided_at,
    may_decide: row.status === 'pending' && mayDecide(row, member),
  };
}

/** Approvals are decided by workspace members only: the operator key and runners decide nothing. */
export async function memberOf(ctx: ApiContext, request: FastifyRequest): Promise<Member> {
  const principal = await ctx.auth.principal(request);
  if (principal.kind !== 'user') {
    throw new Problem(
      403,
      'approvals are decided by workspace members; this credential decides nothing',
    );
  }
  return principal.member;
}

function finalOf(row: ApprovalRow) {
  return {
    status: row.status,
    decision: row.decision,
    decided_by: row.decided_by,
    decided_at: row.decided_at,
  };
}

/**
 * Decides one approval for a member: authority is checked against the member as locked in the
 * deciding transaction, then the compare-and-swap settles it. An approval found past its expiry
 * is settled as expired, the same way the workflow would.
 */
export async function decideApproval(
  ctx: ApiContext,
  member: Member,
  sessionId: string,
  toolCallId: string,
  decision: 'allow' | 'deny',
  reason: string | null,
): Promise<Settlement | { outcome: 'forbidden' }> {
  const settlement = await withTransaction(ctx.pool, async (tx) => {
    const approval = await findApproval(tx, sessionId, toolCallId);
    if (approval?.workspace_id !== member.workspace_id) return { outcome: 'not_found' as const };
    const current = await lockMember(tx, member.id);
    if (!current || !mayDecide(approval, current)) return { outcome: 'forbidden' as const };
    return settleAndRecord(
      tx,
      sessionId,
      toolCallId,
      { by: 'person', decision, decidedBy: member.id, reason },
      member.name,
    );
  });
  if (settlement.outcome === 'already_decided' && settlement.approval.status === 'pending') {
    // Still pending, yet too late for a person: the expiry wins, settled here as the workflow would.
    const expired = await withTransaction(ctx.pool, (tx) =>
      settleAndRecord(tx, sessionId, toolCallId, { by: 'expiry' }),
    );
    if (expired.outcome === 'decided') {
      wake(ctx, sessionId, toolCallId);
      return { outcome: 'already_decided', approval: expired.approval };
    }
    return expired;
  }
  if (settlement.outcome === 'decided') wake(ctx, sessionId, toolCallId);
  return settlement;
}

/**
 * Best effort, after commit: the row is the truth and the workflow re-checks it anyway. The
 * signal gets a deadline, and the API waits for signals in flight before it closes.
 */
function wake(ctx: ApiContext, sessionId: string, toolCallId: string) {
  const handle = ctx.temporal.workflow.getHandle(
    gateWorkflowId(asSessionId(sessionId), asToolCallId(toolCallId)),
  );
  const signal = ctx.temporal.connection
    .withDeadline(Date.now() + 5_000, () => handle.signal(approvalDecidedSignal))
    .catch(() => undefined)
    .finally(() => ctx.inFlight.delete(signal));
  ctx.inFlight.add(signal);
}

export function approvalRoutes(app: FastifyInstance, ctx: ApiContext) {
  app.get('/v1/approvals', async (request) => {
    const member = await memberOf(ctx, request);
    validate(listQuery, request.query, 'query');
    const rows = await listPendingApprovalsFor(ctx.pool, member);
    return { approvals: rows.map((row) => approvalView(row, member)) };
  });

  app.get('/v1/approvals/:session_id/:tool_call_id', async (request) => {
    const { session_id, tool_call_id } = validate(approvalParams, request.params, 'path');
    const member = await memberOf(ctx, request);
    const row = await findApproval(ctx.pool, session_id, tool_call_id);
    if (row?.workspace_id !== member.workspace_id)
      throw notFound(`approval ${session_id}/${tool_call_id}`);
    return approvalView(row, member);
  });

  app.post('/v1/approvals/:session_id/:tool_call_id/decision', async (request) => {
    const { session_id, tool_call_id } = validate(approvalParams, request.params, 'path');
    const member = await memberOf(ctx, request);
    const body = validate(decisionBody, request.body, 'body');
    const decision = body.decision === 'approve' ? 'allow' : 'deny';
    let result;
    try {
      result = await decideApproval(
        ctx,
        member,
        session_id,
        tool_call_id,
        decision,
        body.reason ?? null,
      );
    } catch (err) {
      if (err instanceof Problem) throw err;
      // Fail closed: the decision and its ledger entries commit together or not at all.
      request.log.error({ err }, 'deciding an approval failed');
      throw new Problem(
        503,
        'the decision could not be recorded and was rolled back; the approval is still pending',
      );
    }
    if (result.outcome === 'not_found') throw notFound(`approval ${session_id}/${tool_call_id}`);
    if (result.outcome === 'forbidden') throw new Problem(403, 'you may not decide this approval');
    if (result.outcome === 'already_decided') {
      throw new Problem(409, 'this approval was already decided', {
        extra: { outcome: 'already_decided', final: finalOf(result.approval) },
      });
    }
    return {
      outcome: 'decided',
      ...finalOf(result.approval),
      answer: inReadingOrder(result.answer),
    };
  });
}
