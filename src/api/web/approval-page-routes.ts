import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { decideApproval } from '../../application/decide-approval.js';
import { grantLengths, lengthText } from '../../domain/approvals/grant-lengths.js';
import { explainScope, scopeText } from '../../domain/approvals/grant-offers.js';
import { offeredScopes, scopeKinds, type ScopeKind } from '../../domain/approvals/grant-scopes.js';
import { offeredTo, seesArguments } from '../../domain/gate/approval.js';
import type { SessionId, ToolCallId } from '../../domain/gate/ids.js';
import { findMember, type Member } from '../../store/queries/members.js';
import { findApproval, listApprovals, visiblePendingKeys } from '../../store/queries/approvals.js';
import { findBudget } from '../../store/queries/budget.js';
import { latestRunDecisions } from '../../store/queries/run-decisions.js';
import { findRun } from '../../store/queries/runs.js';
import { findPolicyVersion } from '../../store/queries/policies.js';
import type { ApiContext } from '../context.js';
import { notFound } from '../problem.js';
import { media } from '../route-schemas.js';
import { approvalParams } from '../routes/approvals.js';
import { approvalDetailPage, type ApprovalDetail, type Notice } from './approval-detail-page.js';
import {
  approvalList,
  approvalListPage,
  pendingVersion,
  type ListView,
} from './approval-list-page.js';
import { errorPage } from './error-page.js';
import { toLoginAnswer, visitorOf } from './admission.js';
import { sendPage, webFormTags as tags } from './layout.js';
import { findRunSummaries } from './run-summaries.js';
import type { SignedIn } from './session.js';

const decisionForm = z
  .object({
    csrf: z.string(),
    decision: z.enum(['approve', 'deny']),
    reason: z.string().trim().max(1000).optional(),
    grant_for: z
      .enum(grantLengths.map((length) => length.value) as [string, ...string[]])
      .default('none'),
    grant_scope: z.enum(scopeKinds as [ScopeKind, ...ScopeKind[]]).default('exact'),
  })
  .strict();

/** The standing approval a form asks for: none, or a scope for the rest of the run or a while. */
function grantOf(grantFor: string, scope: ScopeKind) {
  const length = grantLengths.find((l) => l.value === grantFor);
  if (length?.for_s === undefined) return {};
  return { grant: { for_s: length.for_s, scope } };
}

/** Which of the list's views, and which page: `/approvals?view=decided&page=2`. */
const listPageQuery = z
  .object({
    view: z.enum(['mine', 'all', 'decided']).default('mine'),
    page: z.coerce.number().int().min(1).max(100_000).default(1),
  })
  .strict();

const perPage = 50;

async function listView(
  ctx: ApiContext,
  member: Member,
  { view: tab, page }: z.infer<typeof listPageQuery>,
): Promise<ListView> {
  const decided = tab === 'decided';
  const [{ rows, total }, keys] = await Promise.all([
    listApprovals(ctx.pool, member, {
      status: decided ? 'decided' : 'pending',
      scope: tab === 'mine' ? 'mine' : 'all',
      limit: perPage,
      offset: (page - 1) * perPage,
    }),
    visiblePendingKeys(ctx.pool, member),
  ]);
  const runs = await findRunSummaries(
    ctx.pool,
    rows.map((row) => row.run_id),
  );
  return {
    tab,
    page,
    perPage,
    total,
    rows,
    runs,
    version: pendingVersion(keys),
    member,
    now: new Date(),
  };
}

/** Everything the detail page shows; undefined for approvals outside the member's workspace. */
async function loadDetail(
  ctx: ApiContext,
  member: Member,
  sessionId: SessionId,
  toolCallId: ToolCallId,
): Promise<ApprovalDetail | undefined> {
  const approval = await findApproval(ctx.pool, sessionId, toolCallId);
  if (approval?.workspace_id !== member.workspace_id) return undefined;
  const [summaries, frozen, budget, decisions] = await Promise.all([
    findRunSummaries(ctx.pool, [approval.run_id]),
    findRun(ctx.pool, approval.run_id),
    findBudget(ctx.pool, approval.run_id),
    latestRunDecisions(ctx.pool, approval.run_id, approval, 8),
  ]);
  const run = summaries.get(approval.run_id);
  // Past its expiry a pending approval can only expire: offer no buttons for it.
  const mayDecide = offeredTo(approval, member) && approval.expires_at.getTime() > Date.now();
  const version =
    run && (await findPolicyVersion(ctx.pool, run.policy_id, approval.policy_version));
  const decidedBy =
    approval.decided_by === null
      ? undefined
      : await findMember(ctx.pool, approval.workspace_id, approval.decided_by);
  return {
    approval,
    run,
    tool: frozen?.toolset.find((tool) => tool.name === approval.tool),
    budget,
    decisions,
    policy: version && {
      name: version.body.name,
      rule: version.body.rules.find((rule) => rule.id === approval.rule_id),
    },
    decidedByName: decidedBy?.name,
    showArguments: seesArguments(approval, member, run?.invoked_by),
    mayDecide,
    grantOffers: mayDecide
      ? offeredScopes(approval.tool, approval.arguments).map((scope) => ({
          kind: scope.kind,
          text: scopeText(scope),
          explanation: explainScope(scope),
        }))
      : [],
  };
}

async function showDetail(
  ctx: ApiContext,
  reply: FastifyReply,
  session: SignedIn,
  params: { session_id: SessionId; tool_call_id: ToolCallId },
  status = 200,
  notice?: Notice,
) {
  const detail = await loadDetail(ctx, session.member, params.session_id, params.tool_call_id);
  if (!detail) throw notFound(`approval ${params.session_id}/${params.tool_call_id}`);
  return sendPage(reply, status, approvalDetailPage(session, detail, notice));
}

const config = { caller: 'browser' } as const;

export function approvalPageRoutes(server: FastifyInstance, ctx: ApiContext) {
  const web = server.withTypeProvider<ZodTypeProvider>();

  web.get(
    '/approvals',
    {
      config,
      schema: {
        operationId: 'approvalsPage',
        summary: 'The approvals, as a page: to decide by me, all pending, or decided',
        tags,
        querystring: listPageQuery,
        response: { 200: media('the page'), 303: toLoginAnswer },
      },
    },
    async (request, reply) => {
      const session = visitorOf(request);
      const view = await listView(ctx, session.member, request.query);
      return sendPage(reply, 200, approvalListPage(session, view));
    },
  );

  // The list alone, for the page's script to swap in when the pending set changes.
  web.get(
    '/approvals/list',
    {
      // Fetched by the page's script when its stream says the list changed: no sign of the person.
      config: { ...config, web: { signedOut: 'your sign-in has ended', renews: false } },
      schema: {
        operationId: 'approvalsListFragment',
        summary: "The list page's rows, refreshed by its script",
        tags,
        querystring: listPageQuery,
        response: { 200: media('the rows') },
      },
    },
    async (request, reply) => {
      const { member } = visitorOf(request);
      return sendPage(reply, 200, approvalList(await listView(ctx, member, request.query)));
    },
  );

  web.get(
    '/approvals/:session_id/:tool_call_id',
    {
      config,
      schema: {
        operationId: 'approvalPage',
        summary: 'One approval with Approve / Deny',
        tags,
        params: approvalParams,
        response: { 200: media('the page'), 303: toLoginAnswer },
      },
    },
    async (request, reply) => showDetail(ctx, reply, visitorOf(request), request.params),
  );

  web.post(
    '/approvals/:session_id/:tool_call_id/decision',
    {
      config: { ...config, web: { signedOut: 'your sign-in has ended; sign in and decide again' } },
      schema: {
        operationId: 'approvalFormDecision',
        summary: 'Approve or deny from the form, with a standing approval when chosen',
        tags,
        consumes: ['application/x-www-form-urlencoded'],
        params: approvalParams,
        body: decisionForm,
        response: {
          200: media('decided: the approval, saying so'),
          400: media('a standing approval the gate does not offer: the approval, saying so'),
          409: media('already decided, or the run was revoked: the approval, saying so'),
        },
      },
    },
    async (request, reply) => {
      const session = visitorOf(request);
      const { params } = request;
      const { decision, reason, grant_for, grant_scope } = request.body;
      // A deny with a standing approval chosen is a deny: the choice is for approving only.
      const grant = decision === 'approve' ? grantOf(grant_for, grant_scope) : {};
      const result = await decideApproval(ctx, {
        member: session.member,
        sessionId: params.session_id,
        toolCallId: params.tool_call_id,
        decision: decision === 'approve' ? 'allow' : 'deny',
        reason: reason || null,
        ...grant,
      });
      if (result.outcome === 'grant_not_offered') {
        return showDetail(ctx, reply, session, params, 400, {
          kind: 'error',
          text: 'The gate offers no standing approval for this call. Nothing was recorded.',
        });
      }
      if (result.outcome === 'not_found') {
        throw notFound(`approval ${params.session_id}/${params.tool_call_id}`);
      }
      if (result.outcome === 'forbidden') {
        return sendPage(reply, 403, errorPage(403, 'You may not decide this approval.', session));
      }
      if (result.outcome === 'run_revoked') {
        return showDetail(ctx, reply, session, params, 409, {
          kind: 'info',
          text: 'This run was revoked; its calls are decided no more. Your decision was not recorded.',
        });
      }
      if (result.outcome === 'already_decided') {
        return showDetail(ctx, reply, session, params, 409, {
          kind: 'info',
          text: 'This call was already decided; your decision was not recorded.',
        });
      }
      const more =
        decision === 'deny'
          ? ''
          : grant.grant && result.grant
            ? ` The same is allowed without asking ${lengthText(grant.grant.for_s)}, as you chose.`
            : ' Nothing more is allowed without asking.';
      return showDetail(ctx, reply, session, params, 200, {
        kind: 'ok',
        text: `You ${decision === 'approve' ? 'approved' : 'denied'} this call. The runner has its answer.${more}`,
      });
    },
  );
}
