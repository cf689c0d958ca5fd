import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { revokeRunGrant } from '../../application/revoke-grant.js';
import { asRunId } from '../../domain/gate/ids.js';
import { grantsOfRun } from '../../store/queries/approval-grants.js';
import { findBudget } from '../../store/queries/budget.js';
import { findRun } from '../../store/queries/runs.js';
import type { ApiContext } from '../context.js';
import { notFound } from '../problem.js';
import { media } from '../route-schemas.js';
import type { Notice } from './approval-detail-page.js';
import { errorPage } from './error-page.js';
import { toLoginAnswer, visitorOf } from './admission.js';
import { sendPage, webFormTags as tags } from './layout.js';
import { runPage } from './run-page.js';
import { findRunSummaries } from './run-summaries.js';
import type { SignedIn } from './session.js';

const runPageParams = z.object({ run_id: z.uuid() }).strict();
const grantParams = z.object({ run_id: z.uuid(), grant_id: z.uuid() }).strict();
const revokeForm = z.object({ csrf: z.string() }).strict();

async function showRun(
  ctx: ApiContext,
  reply: FastifyReply,
  session: SignedIn,
  runId: string,
  status = 200,
  notice?: Notice,
) {
  const id = asRunId(runId);
  const [frozen, summaries] = await Promise.all([
    findRun(ctx.pool, id),
    findRunSummaries(ctx.pool, [id]),
  ]);
  const run = summaries.get(id);
  // Like an approval, a run outside the member's workspace is not there for them.
  if (!run || frozen?.workspace_id !== session.member.workspace_id) throw notFound(`run ${runId}`);
  const [grants, budget] = await Promise.all([
    grantsOfRun(ctx.pool, runId),
    findBudget(ctx.pool, id),
  ]);
  return sendPage(
    reply,
    status,
    runPage(session, { run, grants, budget, now: new Date() }, notice),
  );
}

const config = { caller: 'browser' } as const;

/** The run's page (its standing approvals) and a grant's revocation, from the web form. */
export function runPageRoutes(server: FastifyInstance, ctx: ApiContext) {
  const web = server.withTypeProvider<ZodTypeProvider>();

  web.get(
    '/approvals/runs/:run_id',
    {
      config,
      schema: {
        operationId: 'runPage',
        summary: "A run's page: its standing approvals, each revocable by a decider",
        tags,
        params: runPageParams,
        response: { 200: media('the page'), 303: toLoginAnswer },
      },
    },
    async (request, reply) => showRun(ctx, reply, visitorOf(request), request.params.run_id),
  );

  web.post(
    '/approvals/runs/:run_id/grants/:grant_id/revoke',
    {
      config: { ...config, web: { signedOut: 'your sign-in has ended; sign in and revoke again' } },
      schema: {
        operationId: 'revokeGrantForm',
        summary: 'Revoke a standing approval from the run page (form post with the CSRF value)',
        tags,
        consumes: ['application/x-www-form-urlencoded'],
        params: grantParams,
        body: revokeForm,
        response: {
          200: media('revoked, or already ended: the run page, saying so'),
          403: media('not a decider of its calls'),
        },
      },
    },
    async (request, reply) => {
      const session = visitorOf(request);
      const { params } = request;
      const result = await revokeRunGrant(ctx.pool, {
        member: session.member,
        runId: params.run_id,
        grantId: params.grant_id,
      });
      if (result.outcome === 'not_found') throw notFound(`grant ${params.grant_id}`);
      if (result.outcome === 'forbidden')
        return sendPage(reply, 403, errorPage(403, 'You may not revoke this grant.', session));
      const text =
        result.outcome === 'revoked'
          ? 'The grant is revoked: the calls it covered ask again.'
          : 'This grant had already ended.';
      return showRun(ctx, reply, session, params.run_id, 200, { kind: 'ok', text });
    },
  );
}
