import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { decideApproval } from '../../application/decide-approval.js';
import { offeredTo, seesArguments } from '../../domain/gate/approval.js';
import { findApproval, listPendingApprovalsFor, type ApprovalRow } from '../../store/approvals.js';
import type { Member } from '../../store/members.js';
import { findRunSummaries } from '../../store/runs.js';
import type { ApiContext } from '../context.js';
import { callerMember } from '../callers.js';
import { Problem, notFound, problemSchema } from '../problem.js';
import { anyObject, json, problem, timestamp } from '../route-schemas.js';
import { sessionIdParam, toolCallIdParam } from '../validation.js';
import { toolCallAnswer } from './tool-calls.js';

export const approvalParams = z
  .object({ session_id: sessionIdParam, tool_call_id: toolCallIdParam })
  .strict();
export const listQuery = z.object({ status: z.literal('pending').default('pending') }).strict();
export const decisionBody = z
  .object({ decision: z.enum(['approve', 'deny']), reason: z.string().trim().max(1000).optional() })
  .strict();

const approvalStatus = z.enum(['pending', 'approved', 'denied', 'expired', 'failed_closed']);
const decision = z.enum(['allow', 'deny']).nullable();

/** An approval as its member sees it: `arguments`, or `arguments_hidden` when they may not. */
export const approvalAnswer = z.object({
  session_id: z.string(),
  tool_call_id: z.string(),
  run_id: z.uuid(),
  workspace: z.uuid(),
  tool: z.string(),
  arguments: anyObject.optional(),
  arguments_hidden: z.literal(true).optional(),
  rule_id: z.string().nullable(),
  policy_version: z.number().int(),
  authority: z.enum(['owner', 'workspace_approvers']),
  owner_user_id: z.uuid().nullable(),
  status: approvalStatus,
  decision,
  decided_by: z.uuid().nullable(),
  reason: z.string().nullable(),
  requested_at: timestamp,
  expires_at: timestamp,
  decided_at: timestamp.nullable(),
  may_decide: z.boolean(),
});
export const approvalsAnswer = z.object({ approvals: z.array(approvalAnswer) });

const finalAnswer = {
  status: approvalStatus,
  decision,
  decided_by: z.uuid().nullable(),
  decided_at: timestamp.nullable(),
};
export const decisionAnswer = z.object({
  outcome: z.literal('decided'),
  ...finalAnswer,
  answer: toolCallAnswer,
});
export const notDecidedAnswer = problemSchema.extend({
  outcome: z.enum(['already_decided', 'run_revoked']),
  final: z.object(finalAnswer),
});

/** An approval as this member may see it: the arguments only for deciders and the invoker. */
function approvalView(row: ApprovalRow, member: Member, invokedBy: string | undefined) {
  const shown = seesArguments(row, member, invokedBy);
  return {
    session_id: row.session_id,
    tool_call_id: row.tool_call_id,
    run_id: row.run_id,
    workspace: row.workspace_id,
    tool: row.tool,
    ...(shown ? { arguments: row.arguments } : { arguments_hidden: true as const }),
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
    may_decide: offeredTo(row, member),
  };
}

function finalOf(row: ApprovalRow) {
  return {
    status: row.status,
    decision: row.decision,
    decided_by: row.decided_by,
    decided_at: row.decided_at,
  };
}

const tags = ['approvals'];
const config = { caller: 'member' } as const;

export function approvalRoutes(server: FastifyInstance, ctx: ApiContext) {
  const app = server.withTypeProvider<ZodTypeProvider>();

  app.get(
    '/v1/approvals',
    {
      config,
      schema: {
        operationId: 'listApprovals',
        summary: 'The pending approvals the caller may decide',
        tags,
        querystring: listQuery,
        response: { 200: json('the approvals', approvalsAnswer) },
      },
    },
    async (request) => {
      const member = callerMember(request);
      const rows = await listPendingApprovalsFor(ctx.pool, member);
      const runs = await findRunSummaries(
        ctx.pool,
        rows.map((row) => row.run_id),
      );
      return {
        approvals: rows.map((row) => approvalView(row, member, runs.get(row.run_id)?.invoked_by)),
      };
    },
  );

  app.get(
    '/v1/approvals/:session_id/:tool_call_id',
    {
      config,
      schema: {
        operationId: 'getApproval',
        summary: 'One approval, with the arguments an approver decides on',
        tags,
        params: approvalParams,
        response: { 200: json('the approval', approvalAnswer) },
      },
    },
    async (request) => {
      const { session_id, tool_call_id } = request.params;
      const member = callerMember(request);
      const row = await findApproval(ctx.pool, session_id, tool_call_id);
      if (row?.workspace_id !== member.workspace_id)
        throw notFound(`approval ${session_id}/${tool_call_id}`);
      const run = (await findRunSummaries(ctx.pool, [row.run_id])).get(row.run_id);
      return approvalView(row, member, run?.invoked_by);
    },
  );

  app.post(
    '/v1/approvals/:session_id/:tool_call_id/decision',
    {
      config: { ...config, holds: 'writes' },
      schema: {
        operationId: 'decideApproval',
        summary: 'Approve or deny; exactly one decider wins',
        tags,
        params: approvalParams,
        body: decisionBody,
        response: {
          200: json('decided', decisionAnswer),
          409: problem('already decided, or the run was revoked', notDecidedAnswer),
        },
      },
    },
    async (request) => {
      const { session_id, tool_call_id } = request.params;
      const { body } = request;
      const result = await decideApproval(ctx, {
        member: callerMember(request),
        sessionId: session_id,
        toolCallId: tool_call_id,
        decision: body.decision === 'approve' ? 'allow' : 'deny',
        reason: body.reason ?? null,
      });
      switch (result.outcome) {
        case 'not_found':
          throw notFound(`approval ${session_id}/${tool_call_id}`);
        case 'forbidden':
          throw new Problem(403, 'you may not decide this approval');
        case 'already_decided':
          throw new Problem(409, 'this approval was already decided', {
            extra: { outcome: 'already_decided', final: finalOf(result.approval) },
          });
        case 'run_revoked':
          throw new Problem(
            409,
            `run ${result.approval.run_id} was revoked: its calls are decided no more`,
            {
              extra: { outcome: 'run_revoked', final: finalOf(result.approval) },
            },
          );
        case 'decided':
          return {
            outcome: 'decided' as const,
            ...finalOf(result.approval),
            answer: result.answer,
          };
      }
    },
  );
}
