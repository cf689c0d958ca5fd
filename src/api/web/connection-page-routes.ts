import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  abandonAuthorization,
  AuthorizationRefusedError,
  callbackPath,
  connectionToAuthorize,
  disconnectAs,
  finishAuthorization,
  startAuthorization,
} from '../../application/oauth-connections.js';
import { listConnectionsFor } from '../../store/connections.js';
import { callerKey } from '../caller-slots.js';
import type { ApiContext } from '../context.js';
import { Problem } from '../problem.js';
import { idParams } from '../routes/connections.js';
import { validate } from '../validation.js';
import type { Notice } from './approval-detail-page.js';
import {
  authorizePage,
  connectionsPage,
  continuePage,
  declinedPage,
  finishPage,
} from './connections-page.js';
import { requireCsrf, requireSameOrigin } from './csrf.js';
import { formOf } from './form-body.js';
import { sendPage } from './layout.js';
import { signedIn, type SignedIn } from './session.js';

/** What an authorization server sends back: a code, or an error (RFC 6749 section 4.1.2). */
export const callbackQuery = z
  .object({
    code: z.string().min(1).max(4096).optional(),
    state: z.string().min(1).max(512).optional(),
    error: z.string().min(1).max(200).optional(),
    error_description: z.string().max(1000).optional(),
    iss: z.string().max(2048).optional(),
  })
  .strict()
  .refine((q) => q.error !== undefined || (q.code !== undefined && q.state !== undefined), {
    error: 'a callback brings a code and its state, or an error',
    path: ['code'],
  });

export const csrfForm = z.object({ csrf: z.string() }).strict();
export const callbackForm = z
  .object({ code: z.string().min(1).max(4096), state: z.string().min(1).max(512) })
  .strict();

/** A signed-out visitor is sent to sign in and brought back here afterwards. */
function toLogin(request: FastifyRequest, reply: FastifyReply) {
  const path = request.url.split('?')[0] ?? '/connections';
  return reply.redirect(`/login?next=${encodeURIComponent(path)}`, 303);
}

async function showList(
  ctx: ApiContext,
  reply: FastifyReply,
  session: SignedIn,
  status = 200,
  notice?: Notice,
) {
  const rows = await listConnectionsFor(ctx.pool, session.member);
  return sendPage(reply, status, connectionsPage(session, rows, notice));
}

/** A signed-in member's form post from this site, holding one of their write slots. */
async function formPost(
  ctx: ApiContext,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<SignedIn> {
  requireSameOrigin(request, ctx.publicUrl);
  const session = await signedIn(ctx, request);
  if (!session) throw new Problem(401, 'your sign-in has ended; sign in and try again');
  ctx.slots.holdFor(reply.raw, 'writes', callerKey({ kind: 'user', member: session.member }));
  return session;
}

/** A post of one connection's form (a button and its CSRF token). */
async function connectionFormPost(ctx: ApiContext, request: FastifyRequest, reply: FastifyReply) {
  const { id } = validate(idParams, request.params, 'path');
  const session = await formPost(ctx, request, reply);
  const form = formOf(request.body);
  requireCsrf(form.csrf, session.csrf);
  validate(csrfForm, form, 'body');
  return { id, session };
}

/** Completes the authorization the signed-in member started, and shows the outcome. */
async function finish(
  ctx: ApiContext,
  reply: FastifyReply,
  session: SignedIn,
  callback: { code: string; state: string },
) {
  try {
    const row = await finishAuthorization(ctx, session.member, callback);
    return await showList(ctx, reply, session, 200, {
      kind: 'ok',
      text: `${row.name} is connected.`,
    });
  } catch (error) {
    if (!(error instanceof AuthorizationRefusedError)) throw error;
    return showList(ctx, reply, session, 403, { kind: 'error', text: error.message });
  }
}

export function connectionPageRoutes(web: FastifyInstance, ctx: ApiContext) {
  web.get('/connections', async (request, reply) => {
    const session = await signedIn(ctx, request);
    if (!session) return toLogin(request, reply);
    return showList(ctx, reply, session);
  });

  web.get('/connections/:id/authorize', async (request, reply) => {
    const { id } = validate(idParams, request.params, 'path');
    const session = await signedIn(ctx, request);
    if (!session) return toLogin(request, reply);
    const row = await connectionToAuthorize(ctx.pool, session.member, id);
    return sendPage(reply, 200, authorizePage(session, row));
  });

  web.post('/connections/:id/authorize', async (request, reply) => {
    const { id, session } = await connectionFormPost(ctx, request, reply);
    const to = await startAuthorization(ctx, session.member, id);
    return sendPage(reply, 200, continuePage(session, to));
  });

  web.get(callbackPath, async (request, reply) => {
    const query = validate(callbackQuery, request.query, 'query');
    const session = await signedIn(ctx, request);
    if (query.error !== undefined || query.code === undefined || query.state === undefined) {
      // Refused or declined at the server: the attempt is used up, and nothing else changes.
      if (session && query.state) await abandonAuthorization(ctx, session.member, query.state);
      return sendPage(reply, 200, declinedPage(query.error ?? 'no code', session));
    }
    const callback = { code: query.code, state: query.state };
    if (!session) return sendPage(reply, 200, finishPage(callback));
    return finish(ctx, reply, session, callback);
  });

  web.post(callbackPath, async (request, reply) => {
    const session = await formPost(ctx, request, reply);
    const form = validate(callbackForm, formOf(request.body), 'body');
    return finish(ctx, reply, session, form);
  });

  web.post('/connections/:id/disconnect', async (request, reply) => {
    const { id, session } = await connectionFormPost(ctx, request, reply);
    const { connection, revoked_at_server: atServer } = await disconnectAs(ctx, session.member, id);
    const where = atServer ? ' and its tokens were revoked at the server' : '';
    return showList(ctx, reply, session, 200, {
      kind: 'ok',
      text: `${connection.name} is disconnected${where}.`,
    });
  });
}
