import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
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
import { listConnectionsFor } from '../../store/queries/connections.js';
import type { ApiContext } from '../context.js';
import { media } from '../route-schemas.js';
import { idParams } from '../routes/connections.js';
import type { Notice } from './approval-detail-page.js';
import {
  authorizePage,
  connectionsPage,
  continuePage,
  declinedPage,
  finishPage,
} from './connections-page.js';
import { toLoginAnswer, visitorOf } from './admission.js';
import { sendPage, webFormTags as tags } from './layout.js';
import { signedIn, type SignedIn } from './session.js';

/** A code and a state are printable ASCII (RFC 6749 appendix A: VSCHAR). */
const vschars = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .regex(/^[\x20-\x7e]+$/, 'printable ASCII only');
const code = vschars(4096);
const state = vschars(512);

/** What an authorization server sends back: a code, or an error (RFC 6749 section 4.1.2). */
const callbackQuery = z
  .object({
    code: code.optional(),
    state: state.optional(),
    error: z.string().min(1).max(200).optional(),
    error_description: z.string().max(1000).optional(),
    iss: z.string().max(2048).optional(),
  })
  .strict()
  .refine((q) => q.error !== undefined || (q.code !== undefined && q.state !== undefined), {
    error: 'a callback brings a code and its state, or an error',
    path: ['code'],
  });

const csrfForm = z.object({ csrf: z.string() }).strict();
const callbackForm = z.object({ code, state, iss: z.string().max(2048).optional() }).strict();

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

/** Completes the authorization the signed-in member started, and shows the outcome. */
async function finish(
  ctx: ApiContext,
  reply: FastifyReply,
  session: SignedIn,
  callback: { code: string; state: string; iss?: string | undefined },
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

const config = { caller: 'browser' } as const;
const form = { consumes: ['application/x-www-form-urlencoded'] };

export function connectionPageRoutes(server: FastifyInstance, ctx: ApiContext) {
  const web = server.withTypeProvider<ZodTypeProvider>();
  // A button of one connection's form (its CSRF value), or a callback's form (none).

  web.get(
    '/connections',
    {
      config,
      schema: {
        operationId: 'connectionsPage',
        summary: "The signed-in member's connections (an admin's: the workspace's org ones too)",
        tags,
        response: { 200: media('the page'), 303: toLoginAnswer },
      },
    },
    async (request, reply) => showList(ctx, reply, visitorOf(request)),
  );

  web.get(
    '/connections/:id/authorize',
    {
      config,
      schema: {
        operationId: 'connectionAuthorizePage',
        summary: 'Connect or reconnect an OAuth connection (its owner; an admin for an org one)',
        tags,
        params: idParams,
        response: { 200: media('the page'), 303: toLoginAnswer },
      },
    },
    async (request, reply) => {
      const session = visitorOf(request);
      const row = await connectionToAuthorize(ctx.pool, session.member, request.params.id);
      return sendPage(reply, 200, authorizePage(session, row));
    },
  );

  web.post(
    '/connections/:id/authorize',
    {
      config,
      schema: {
        operationId: 'connectionAuthorizeStart',
        summary: 'Start the authorization: on to the authorization server',
        tags,
        ...form,
        params: idParams,
        body: csrfForm,
        response: { 200: media('a page sending the browser on') },
      },
    },
    async (request, reply) => {
      const session = visitorOf(request);
      const to = await startAuthorization(ctx, session.member, request.params.id);
      return sendPage(reply, 200, continuePage(session, to));
    },
  );

  web.get(
    callbackPath,
    {
      // Signed in or not: a callback that arrives without the session cookie finishes by a form.
      config: { ...config, web: { anyVisitor: true } },
      schema: {
        operationId: 'connectionOAuthCallback',
        summary: 'Where the authorization server sends the person back',
        tags,
        querystring: callbackQuery,
        response: { 200: media('the outcome, or a page to finish from') },
      },
    },
    async (request, reply) => {
      const { query } = request;
      const session = await signedIn(ctx, request);
      if (query.error !== undefined || query.code === undefined || query.state === undefined) {
        // Refused or declined at the server: the attempt is used up, and nothing else changes.
        if (session && query.state) await abandonAuthorization(ctx, session.member, query.state);
        return sendPage(reply, 200, declinedPage(query.error ?? 'no code', session));
      }
      const callback = { code: query.code, state: query.state, iss: query.iss };
      if (!session) return sendPage(reply, 200, finishPage(callback));
      return finish(ctx, reply, session, callback);
    },
  );

  web.post(
    callbackPath,
    {
      config: { ...config, web: { csrf: false } },
      schema: {
        operationId: 'connectionOAuthFinish',
        summary: 'Finish an authorization whose callback arrived without the session cookie',
        tags,
        ...form,
        body: callbackForm,
        response: { 200: media('the outcome') },
      },
    },
    async (request, reply) => finish(ctx, reply, visitorOf(request), request.body),
  );

  web.post(
    '/connections/:id/disconnect',
    {
      config,
      schema: {
        operationId: 'connectionDisconnect',
        summary: 'Disconnect (the owner) or revoke (an admin) a connection',
        tags,
        ...form,
        params: idParams,
        body: csrfForm,
        response: { 200: media('the connections, with the outcome') },
      },
    },
    async (request, reply) => {
      const session = visitorOf(request);
      const { connection, revoked_at_server: atServer } = await disconnectAs(
        ctx,
        session.member,
        request.params.id,
      );
      const where = atServer ? ' and its tokens were revoked at the server' : '';
      return showList(ctx, reply, session, 200, {
        kind: 'ok',
        text: `${connection.name} is disconnected${where}.`,
      });
    },
  );
}
