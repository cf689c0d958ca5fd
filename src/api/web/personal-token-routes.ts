import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { mintPersonalToken } from '../../application/personal-tokens.js';
import { listPersonalTokens, revokePersonalToken } from '../../store/personal-tokens.js';
import type { ApiContext } from '../context.js';
import { Problem, notFound } from '../problem.js';
import { validate } from '../validation.js';
import { requireCsrf, requireSameOrigin } from './csrf.js';
import { formOf } from './form-body.js';
import { sendPage } from './layout.js';
import { personalTokensPage } from './personal-tokens-page.js';
import { signedIn, type SignedIn } from './session.js';

export const personalTokenForm = z
  .object({
    csrf: z.string(),
    name: z.string().trim().min(1).max(100),
    days: z.coerce.number().int().min(1).max(365),
  })
  .strict();
export const revokeForm = z.object({ csrf: z.string() }).strict();
export const personalTokenParams = z.object({ id: z.uuid() }).strict();

/** A form post of a signed-in member: same origin, signed in, with the session's CSRF token. */
async function signedInPost(ctx: ApiContext, request: FastifyRequest): Promise<SignedIn> {
  requireSameOrigin(request, ctx.publicUrl);
  const session = await signedIn(ctx, request);
  if (!session) throw new Problem(401, 'your sign-in has ended; sign in and try again');
  requireCsrf(formOf(request.body).csrf, session.csrf);
  return session;
}

/** A signed-in member's own API tokens, in the web app. */
export function personalTokenRoutes(web: FastifyInstance, ctx: ApiContext) {
  web.get('/tokens', async (request, reply) => {
    const session = await signedIn(ctx, request);
    if (!session) return reply.redirect('/login', 303);
    const tokens = await listPersonalTokens(ctx.pool, session.member.id);
    return sendPage(reply, 200, personalTokensPage(session, tokens));
  });

  web.post('/tokens', async (request, reply) => {
    const session = await signedInPost(ctx, request);
    const { name, days } = validate(personalTokenForm, formOf(request.body), 'body');
    const { token } = await mintPersonalToken(ctx.pool, session.member, { name, days });
    const tokens = await listPersonalTokens(ctx.pool, session.member.id);
    return sendPage(reply, 201, personalTokensPage(session, tokens, { name, token }));
  });

  web.post('/tokens/:id/revoke', async (request, reply) => {
    const { id } = validate(personalTokenParams, request.params, 'path');
    const session = await signedInPost(ctx, request);
    if (!(await revokePersonalToken(ctx.pool, session.member.id, id))) {
      throw notFound(`active token ${id} of yours`);
    }
    return reply.redirect('/tokens', 303);
  });
}
