import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { findMemberByTokenHash } from '../../store/queries/members.js';
import type { ApiContext } from '../context.js';
import { clientKey, RateWindow } from '../rate-window.js';
import { hashToken, tokenKind } from '../../application/tokens.js';
import { clearCookie, readCookie, setCookie } from './cookies.js';
import { loginCsrfCookie, newLoginCsrf, requireCsrf, requireSameOrigin } from './csrf.js';
import { formOf } from './form-body.js';
import { empty, media } from '../route-schemas.js';
import { sendPage, webFormTags as tags } from './layout.js';
import { loginPage } from './login-page.js';
import { operatorPage } from './operator-page.js';
import { endWebSession, overHttps, startWebSession, webSession } from './session.js';

/** An hour to fill in the sign-in form. */
const loginCsrfLifetimeS = 3600;

/** The ways the sign-in page offers: the identity provider, a user token, or both. */
function signInWays(ctx: ApiContext, next: string | undefined) {
  const oidcHref = next ? `/auth/oidc/login?next=${encodeURIComponent(next)}` : '/auth/oidc/login';
  return { oidcHref: ctx.oidc && oidcHref, tokenSignIn: ctx.web.tokenSignIn };
}

/** After signing in, go back only to one of our own pages: never an open redirect. */
export function safeNext(next: unknown): string | undefined {
  return typeof next === 'string' &&
    (/^\/approvals(\/[A-Za-z0-9._:%-]{1,400}\/[A-Za-z0-9._:%-]{1,400})?$/.test(next) ||
      /^\/connections(\/[0-9a-f-]{36}\/authorize)?$/.test(next) ||
      /^\/oauth\/consent\/[0-9a-f-]{36}$/.test(next) ||
      next === '/run-profiles')
    ? next
    : undefined;
}

function loginAgain(
  ctx: ApiContext,
  reply: FastifyReply,
  status: number,
  csrf: string,
  next: string | undefined,
  error: string,
) {
  return sendPage(reply, status, loginPage({ ...signInWays(ctx, next), csrf, next, error }));
}

// `next` is one of our own paths (safeNext): longer is never one, and would not fit a header.
const next = z.string().max(1000).optional();
export const loginQuery = z.object({ next });
/** The sign-in page's fields, and only those: a field it does not have is refused. */
const loginForm = z
  .object({ csrf: z.string(), token: z.string().max(8192).optional(), next })
  .strict();
const logoutForm = z.object({ csrf: z.string().optional() }).strict();

const form = { consumes: ['application/x-www-form-urlencoded'] };

/** A sign-in post must come from our own page, with the value its cookie holds. */
function loginPostedHere(ctx: ApiContext, request: FastifyRequest) {
  requireSameOrigin(request, ctx.publicUrl);
  requireCsrf(formOf(request.body).csrf, readCookie(request, loginCsrfCookie));
}

/** Wrong tokens (or operator keys) one client address may post a minute before it waits. */
export const loginGuessesPerMinute = 10;

export function loginRoutes(server: FastifyInstance, ctx: ApiContext) {
  const web = server.withTypeProvider<ZodTypeProvider>();
  const guesses = new RateWindow(loginGuessesPerMinute);

  web.get(
    '/login',
    {
      config: { caller: 'anyone' },
      schema: {
        operationId: 'loginPage',
        summary:
          'Sign-in page of the approvals form (signed in as the operator: what that sign-in is for)',
        tags,
        querystring: loginQuery,
        response: {
          200: media('the page'),
          303: empty('signed in already: on to the approvals'),
        },
      },
    },
    async (request, reply) => {
      const next = safeNext(request.query.next);
      const session = await webSession(ctx, request);
      if (session?.holder.kind === 'operator') return sendPage(reply, 200, operatorPage(session));
      if (session) return reply.redirect(next ?? '/approvals', 303);
      // Several open sign-in tabs share one value, so signing in from any of them works.
      const csrf = readCookie(request, loginCsrfCookie) ?? newLoginCsrf();
      setCookie(reply, loginCsrfCookie, csrf, {
        maxAgeS: loginCsrfLifetimeS,
        secure: overHttps(request, ctx.publicUrl),
      });
      return sendPage(reply, 200, loginPage({ ...signInWays(ctx, next), csrf, next }));
    },
  );

  web.post(
    '/login',
    {
      config: { caller: 'anyone' },
      preValidation: (request, _reply, done) => {
        loginPostedHere(ctx, request);
        done();
      },
      schema: {
        operationId: 'login',
        summary:
          "Sign in with a user token, or the operator key for the codec's use (form post with the sign-in CSRF value)",
        tags,
        ...form,
        body: loginForm,
        response: {
          303: empty('signed in'),
          401: media('neither a user token nor the operator key'),
          429: media('too many wrong tokens from this address; Retry-After says when to try again'),
          403: media(
            'a suspended membership, token sign-in switched off, or a post from elsewhere',
          ),
        },
      },
    },
    async (request, reply) => {
      const { csrf } = request.body;
      const next = safeNext(request.body.next);
      const token = request.body.token?.trim() ?? '';
      const refuse = (status: number, error: string) =>
        loginAgain(ctx, reply, status, csrf, next, error);
      // Guesses at the operator key or a token are few a minute from one address. Every post
      // takes its slot before anything is awaited, so a burst cannot pass on one free slot; a
      // post that turns out right gives it back.
      const taken = guesses.take(clientKey(request.ip));
      if (!taken.ok) {
        reply.header('retry-after', String(taken.retryAfterS));
        return refuse(
          429,
          `Too many wrong tokens from here; try again in ${taken.retryAfterS} seconds.`,
        );
      }
      // The operator signs in only for the Temporal UI's codec; the page it lands on says so.
      if (token !== '' && ctx.auth.isOperatorKey(token)) {
        guesses.giveBack(clientKey(request.ip));
        await startWebSession(ctx, request, reply, 'operator');
        clearCookie(reply, loginCsrfCookie, overHttps(request, ctx.publicUrl));
        return reply.redirect('/login', 303);
      }
      if (!ctx.web.tokenSignIn) {
        return refuse(
          403,
          'Signing in with a user token is switched off here; sign in with your company account.',
        );
      }
      const member =
        tokenKind(token) === 'user'
          ? await findMemberByTokenHash(ctx.pool, hashToken(token))
          : undefined;
      if (!member) return refuse(401, 'That is not a valid user token.');
      guesses.giveBack(clientKey(request.ip));
      if (member.status !== 'active') {
        return refuse(403, 'Your membership in this workspace is suspended.');
      }
      await startWebSession(ctx, request, reply, member);
      clearCookie(reply, loginCsrfCookie, overHttps(request, ctx.publicUrl));
      return reply.redirect(next ?? '/approvals', 303);
    },
  );

  web.post(
    '/logout',
    {
      // Signing out ends whichever session the browser holds, the operator's too.
      config: { caller: 'browser', web: { anyVisitor: true } },
      schema: {
        operationId: 'logout',
        summary: 'Sign out (form post with the CSRF value)',
        tags,
        ...form,
        body: logoutForm,
        response: { 303: empty('signed out') },
      },
    },
    async (request, reply) => {
      const session = await webSession(ctx, request);
      if (session) {
        requireCsrf(request.body.csrf, session.csrf);
        await endWebSession(ctx, request, reply, session);
      }
      return reply.redirect('/login', 303);
    },
  );
}
