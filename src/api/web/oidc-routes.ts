import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { signInPerson } from '../../application/sign-in.js';
import { hashToken } from '../../application/tokens.js';
import {
  insertPendingAuthorization,
  takePendingAuthorization,
} from '../../store/oidc-authorizations.js';
import type { ApiContext } from '../context.js';
import { notFound } from '../problem.js';
import { clearCookie, readCookie, setCookie } from './cookies.js';
import { html } from './html.js';
import { empty, media } from '../route-schemas.js';
import { sendPage, webFormTags as tags } from './layout.js';
import { loginQuery, safeNext } from './login-routes.js';
import { callbackPath, OidcRelyingParty, SignInRefusedError } from './oidc-relying-party.js';
import { overHttps, startWebSession } from './session.js';

/** The browser's half of a sign-in under way: a random value whose hash keys the checks. */
const pendingCookie = 'fg_oidc';
/** Minutes to sign in at the provider; past that the callback is refused. */
const pendingLifetimeS = 600;

/**
 * After the provider's redirect (a navigation from another site) the browser withholds our
 * SameSite=Strict session cookie for the rest of that navigation, redirects included. A page of
 * ours that moves on by itself starts a same-site navigation, which carries it.
 */
function continuePage(next: string) {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta http-equiv="refresh" content="0;url=${next}" />
        <title>Signed in · fluidbox gate</title>
      </head>
      <body>
        <p>Signed in. <a href="${next}">Continue</a></p>
      </body>
    </html>`;
}

function requireOidc(ctx: ApiContext, request: FastifyRequest): OidcRelyingParty {
  if (!ctx.oidc) throw notFound(`no route ${request.method} ${request.url.split('?')[0] ?? ''}`);
  return ctx.oidc;
}

/** Sign-in through the company's identity provider (OpenID Connect, code flow with PKCE). */
export function oidcRoutes(server: FastifyInstance, ctx: ApiContext) {
  const web = server.withTypeProvider<ZodTypeProvider>();
  const config = { caller: 'anyone' } as const;

  web.get(
    '/auth/oidc/login',
    {
      config,
      schema: {
        operationId: 'oidcSignIn',
        summary: "Sign in with the company's identity provider: to the provider (OpenID Connect)",
        tags,
        querystring: loginQuery,
        response: {
          303: empty("to the provider's authorization endpoint"),
          404: media('no identity provider is configured'),
          503: media('the provider could not be reached'),
        },
      },
    },
    async (request, reply) => {
      const oidc = requireOidc(ctx, request);
      const checks = OidcRelyingParty.newChecks();
      const url = await oidc.authorizationUrl(checks);
      const browserKey = randomBytes(32).toString('base64url');
      const next = safeNext(request.query.next) ?? null;
      await insertPendingAuthorization(
        ctx.pool,
        hashToken(browserKey),
        { ...checks, next },
        pendingLifetimeS,
      );
      // Lax: it must come back on the provider's redirect, a top-level navigation from its site.
      setCookie(reply, pendingCookie, browserKey, {
        maxAgeS: pendingLifetimeS,
        secure: overHttps(request, ctx.publicUrl),
        sameSite: 'Lax',
      });
      return reply.redirect(url.href, 303);
    },
  );

  // The query is the provider's to define: the client library reads and checks it whole.
  web.get(
    callbackPath,
    {
      config,
      schema: {
        operationId: 'oidcCallback',
        summary:
          "The identity provider's redirect back: the code is exchanged and the ID token checked",
        tags,
        response: {
          200: media('signed in; the page moves on to the approvals'),
          401: media('the sign-in was refused, and why'),
          403: media('signed in, but no group gives a role here'),
        },
      },
    },
    async (request, reply) => {
      const oidc = requireOidc(ctx, request);
      const browserKey = readCookie(request, pendingCookie);
      clearCookie(reply, pendingCookie, overHttps(request, ctx.publicUrl));
      // Taken before anything is checked: a callback replayed, in this browser or another, finds
      // nothing to match.
      const checks =
        browserKey && (await takePendingAuthorization(ctx.pool, hashToken(browserKey)));
      if (!checks) {
        throw new SignInRefusedError(
          'this browser has no sign-in under way (it was finished already, took too long, or was started elsewhere)',
        );
      }
      const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
      const person = await oidc.signedInPerson(query, checks);
      const member = await signInPerson(ctx.pool, person);
      await startWebSession(ctx, request, reply, member);
      return sendPage(reply, 200, continuePage(checks.next ?? '/approvals'));
    },
  );
}
