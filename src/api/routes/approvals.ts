import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { decideApproval } from '../../application/decide-approval.js';
import { offeredTo, seesArguments } from '../../domain/gate/approval.js';
import { callSummary } from '../../domain/approvals/call-reading.js';
import { scopeKinds, type ScopeKind } from '../../domain/approvals/grant-scopes.js';
import { pullRequestUrl } from '../../domain/approvals/run-source-link.js';
import {
  findApproval,
  listApprovals,
  type ApprovalListScope,
  type ApprovalRow,
} from '../../store/queries/approvals.js';
import type { Member } from '../../store/members.js';
import { findRunSummaries, type RunSummary } from '../../store/queries/runs.js';
import { repositoryOf } from '../web/run-summaries.js';
import type { ApiContext } from '../context.js';
import { callerMember } from '../callers.js';
import { Problem, notFound, problemSchema } from '../problem.js';
import { anyObject, json, problem, timestamp } from '../route-schemas.js';
import { sessionIdParam, toolCallIdParam } from '../validation.js';
import { toolCallAnswer } from './tool-calls.js';

export const approvalParams = z
  .object({ session_id: sessionIdParam, tool_call_id: toolCallIdParam })
  .strict();
const listQuery = z
  .object({
    status: z.enum(['pending', 'decided']).default('pending'),
    /** Default: `mine` for pending (what waits for me), `all` for decided (what was decided). */
    scope: z.enum(['mine', 'all']).optional(),
    page: z.coerce.number().int().min(1).max(100_000).default(1),
    per_page: z.coerce.number().int().min(1).max(200).default(50),
  })
  .strict();
type ListQuery = z.infer<typeof listQuery>;

/** The scope a list query means, its default depending on the status. */
const scopeOf = (query: ListQuery): ApprovalListScope =>
  query.scope ?? (query.status === 'pending' ? 'mine' : 'all');
/**
 * A standing approval: its length (null for the rest of the run) and its scope, this call exactly
 * unless a wider one the gate offers is named.
 */
const grantBody = z
  .object({
    for_s: z
      .number()
      .int()
      .min(10)
      .max(7 * 24 * 3600)
      .nullable()
      .default(null),
    scope: z.enum(scopeKinds as [ScopeKind, ...ScopeKind[]]).default('exact'),
  })
  .strict();
const decisionBody = z
  .object({
    decision: z.enum(['approve', 'deny']),
    reason: z.string().trim().max(1000).optional(),
    /** Approve, and allow the same for this run: the gate's offered scope (see the approval page). */
    grant: grantBody.optional(),
  })
  .strict();

const approvalStatus = z.enum(['pending', 'approved', 'denied', 'expired', 'failed_closed']);
const decision = z.enum(['allow', 'deny']).nullable();

/**
 * An approval as its member sees it: `arguments`, their one-line `summary` and the approver's
 * `reason`, or `arguments_hidden` and `reason_hidden` when they may not.
 */
const approvalAnswer = z.object({
  session_id: z.string(),
  tool_call_id: z.string(),
  run_id: z.uuid(),
  workspace: z.uuid(),
  tool: z.string(),
  arguments: anyObject.optional(),
  summary: z.string().optional(),
  arguments_hidden: z.literal(true).optional(),
  rule_id: z.string().nullable(),
  policy_version: z.number().int(),
  authority: z.enum(['owner', 'workspace_approvers']),
  owner_user_id: z.uuid().nullable(),
  status: approvalStatus,
  decision,
  decided_by: z.uuid().nullable(),
  reason: z.string().nullable().optional(),
  reason_hidden: z.boolean().optional(),
  requested_at: timestamp,
  expires_at: timestamp,
  decided_at: timestamp.nullable(),
  may_decide: z.boolean(),
});

/** The run a group of listed approvals belongs to: where it comes from and who started it. */
const runGroupAnswer = z.object({
  run_id: z.uuid(),
  repository: z.string().nullable(),
  source_kind: z.enum(['manual', 'schedule', 'pull_request']),
  pull_request: z.object({ number: z.number().int(), url: z.string().nullable() }).nullable(),
  trust_tier: z.enum(['trusted', 'read_only']),
  invoked_by: z.uuid(),
  invoked_by_name: z.string(),
});

const approvalListAnswer = z.object({
  status: z.enum(['pending', 'decided']),
  scope: z.enum(['mine', 'all']),
  page: z.number().int(),
  per_page: z.number().int(),
  total: z.number().int(),
  runs: z.array(runGroupAnswer),
  approvals: z.array(approvalAnswer.extend({ decided_by_name: z.string().nullable() })),
});

const finalAnswer = {
  status: approvalStatus,
  decision,
  decided_by: z.uuid().nullable(),
  decided_at: timestamp.nullable(),
};
const decisionAnswer = z.object({
  outcome: z.literal('decided'),
  ...finalAnswer,
  answer: toolCallAnswer,
  /** The standing approval written with this approve, when one was asked for. */
  grant_id: z.uuid().optional(),
});
const notDecidedAnswer = problemSchema.extend({
  outcome: z.enum(['already_decided', 'run_revoked']),
  final: z.object(finalAnswer),
});

/**
 * An approval as this member may see it: the arguments (and what is read off them, the one-line
 * summary and the approver's reason) only for deciders and the invoker.
 */
function approvalView(row: ApprovalRow, member: Member, invokedBy: string | undefined) {
  const shown = seesArguments(row, member, invokedBy);
  return {
    session_id: row.session_id,
    tool_call_id: row.tool_call_id,
    run_id: row.run_id,
    workspace: row.workspace_id,
    tool: row.tool,
    ...(shown
      ? { arguments: row.arguments, summary: callSummary(row.tool, row.arguments) }
      : { arguments_hidden: true as const }),
    rule_id: row.rule_id,
    policy_version: row.policy_version,
    authority: row.authority,
    owner_user_id: row.owner_user_id,
    status: row.status,
    decision: row.decision,
    decided_by: row.decided_by,
    ...(shown ? { reason: row.reason } : { reason_hidden: row.reason !== null }),
    requested_at: row.requested_at,
    expires_at: row.expires_at,
    decided_at: row.decided_at,
    may_decide: offeredTo(row, member),
  };
}

/** The run a group of listed approvals belongs to: where it comes from and who started it. */
function runGroupView(run: RunSummary) {
  const pr = run.source.kind === 'pull_request' ? run.source.pull_request : undefined;
  return {
    run_id: run.id,
    repository: repositoryOf(run.source) ?? null,
    source_kind: run.source.kind,
    pull_request:
      pr?.number === undefined
        ? null
        : { number: pr.number, url: pullRequestUrl(run.source) ?? null },
    trust_tier: run.trust_tier,
    invoked_by: run.invoked_by,
    invoked_by_name: run.invoked_by_name,
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
        summary:
          'Approvals the caller may see, pending (waiting for them, or all) or decided, grouped by run and paged',
        tags,
        querystring: listQuery,
        response: { 200: json('the approvals', approvalListAnswer) },
      },
    },
    async (request) => {
      const member = callerMember(request);
      const query = request.query;
      const scope = scopeOf(query);
      const { rows, total } = await listApprovals(ctx.pool, member, {
        status: query.status,
        scope,
        limit: query.per_page,
        offset: (query.page - 1) * query.per_page,
      });
      const runs = await findRunSummaries(
        ctx.pool,
        rows.map((row) => row.run_id),
      );
      return {
        status: query.status,
        scope,
        page: query.page,
        per_page: query.per_page,
        total,
        // The page's runs in the order their approvals come: the list is grouped by run.
        runs: [...new Set(rows.map((row) => row.run_id))].flatMap((id) => {
          const run = runs.get(id);
          return run ? [runGroupView(run)] : [];
        }),
        approvals: rows.map((row) => ({
          ...approvalView(row, member, row.invoked_by),
          decided_by_name: row.decided_by_name,
        })),
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
        summary: 'Approve or deny, with a standing approval when asked; exactly one decider wins',
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
        ...(body.grant && { grant: body.grant }),
      });
      switch (result.outcome) {
        case 'grant_not_offered':
          throw new Problem(
            400,
            'the gate offers no standing approval for this decision (only an approve, of a call it can scope)',
            { errors: [{ path: 'grant', message: 'not offered for this call' }] },
          );
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
            ...(result.grant && { grant_id: result.grant.id }),
          };
      }
    },
  );
}
