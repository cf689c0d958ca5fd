import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import { revokeRunGrant } from '../../application/revoke-grant.js';
import { asRunId } from '../../domain/gate/ids.js';
import { grantsOfRun } from '../../store/approval-grants.js';
import { findRun } from '../../store/runs.js';
import { callerKey } from '../caller-slots.js';
import type { ApiContext } from '../context.js';
import { Problem, notFound } from '../problem.js';
import { validate } from '../validation.js';
import type { Notice } from './approval-detail-page.js';
import { requireCsrf, requireSameOrigin } from './csrf.js';
import { errorPage } from './error-page.js';
import { formOf } from './form-body.js';
import { sendPage } from './layout.js';
import { runPage } from './run-page.js';
import { findRunSummaries } from './run-summaries.js';
import { signedIn, type SignedIn } from './session.js';

export const runPageParams = z.object({ run_id: z.uuid() }).strict();
export const grantParams = z.object({ run_id: z.uuid(), grant_id: z.uuid() }).strict();
export const revokeForm = z.object({ csrf: z.string() }).strict();

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
  const grants = await grantsOfRun(ctx.pool, runId);
  return sendPage(reply, status, runPage(session, { run, grants, now: new Date() }, notice));
}

/** The run's page (its standing approvals) and a grant's revocation, from the web form. */
export function runPageRoutes(web: FastifyInstance, ctx: ApiContext) {
  web.get('/approvals/runs/:run_id', async (request, reply) => {
    const { run_id } = validate(runPageParams, request.params, 'path');
    const session = await signedIn(ctx, request);
    if (!session)
      return reply.redirect(
        `/login?next=${encodeURIComponent(request.url.split('?')[0] ?? '')}`,
        303,
      );
    return showRun(ctx, reply, session, run_id);
  });

  web.post('/approvals/runs/:run_id/grants/:grant_id/revoke', async (request, reply) => {
    requireSameOrigin(request, ctx.publicUrl);
    const params = validate(grantParams, request.params, 'path');
    const session = await signedIn(ctx, request);
    if (!session) throw new Problem(401, 'your sign-in has ended; sign in and revoke again');
    ctx.slots.holdFor(reply.raw, 'writes', callerKey({ kind: 'user', member: session.member }));
    const form = formOf(request.body);
    requireCsrf(form.csrf, session.csrf);
    validate(revokeForm, form, 'body');
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
  });
}
