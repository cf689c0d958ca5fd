import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { findMemberByTokenHash } from '../../store/members.js';
import type { ApiContext } from '../context.js';
import { hashToken, tokenKind } from '../../application/tokens.js';
import { clearCookie, readCookie, setCookie } from './cookies.js';
import { loginCsrfCookie, newLoginCsrf, requireCsrf, requireSameOrigin } from './csrf.js';
import { formOf } from './form-body.js';
import { sendPage } from './layout.js';
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
      /^\/connections(\/[0-9a-f-]{36}\/authorize)?$/.test(next))
    ? next
    : undefined;
}

export function loginRoutes(web: FastifyInstance, ctx: ApiContext) {
  const loginAgain = (
    reply: FastifyReply,
    status: number,
    csrf: string,
    next: string | undefined,
    error: string,
  ) => sendPage(reply, status, loginPage({ ...signInWays(ctx, next), csrf, next, error }));

  web.get('/login', async (request, reply) => {
    const next = safeNext((request.query as Record<string, unknown>).next);
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
  });

  web.post('/login', async (request: FastifyRequest, reply) => {
    requireSameOrigin(request, ctx.publicUrl);
    const form = formOf(request.body);
    const csrf = readCookie(request, loginCsrfCookie);
    requireCsrf(form.csrf, csrf);
    const next = safeNext(form.next);
    const token = form.token?.trim() ?? '';
    // The operator signs in only for the Temporal UI's codec; the page it lands on says so.
    if (token !== '' && ctx.auth.isOperatorKey(token)) {
      await startWebSession(ctx, request, reply, 'operator');
      clearCookie(reply, loginCsrfCookie, overHttps(request, ctx.publicUrl));
      return reply.redirect('/login', 303);
    }
    if (!ctx.web.tokenSignIn) {
      return loginAgain(
        reply,
        403,
        csrf,
        next,
        'Signing in with a user token is switched off here; sign in with your company account.',
      );
    }
    const member =
      tokenKind(token) === 'user'
        ? await findMemberByTokenHash(ctx.pool, hashToken(token))
        : undefined;
    if (!member) return loginAgain(reply, 401, csrf, next, 'That is not a valid user token.');
    if (member.status !== 'active') {
      return loginAgain(reply, 403, csrf, next, 'Your membership in this workspace is suspended.');
    }
    await startWebSession(ctx, request, reply, member);
    clearCookie(reply, loginCsrfCookie, overHttps(request, ctx.publicUrl));
    return reply.redirect(next ?? '/approvals', 303);
  });

  web.post('/logout', async (request, reply) => {
    requireSameOrigin(request, ctx.publicUrl);
    const session = await webSession(ctx, request);
    if (session) {
      requireCsrf(formOf(request.body).csrf, session.csrf);
      await endWebSession(ctx, request, reply, session);
    }
    return reply.redirect('/login', 303);
  });
}
