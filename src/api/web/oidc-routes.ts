import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { signInPerson } from '../../application/sign-in.js';
import { SealingError, type OidcPending } from '../../broker/sealing.js';
import type { ApiContext } from '../context.js';
import { notFound, Problem } from '../problem.js';
import { clientKey, RateWindow } from '../rate-window.js';
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
/** What the pending cookie is sealed for: it opens for nothing else. */
const pendingPurpose = 'oidc-sign-in';
/** Sign-ins one client address may start a minute (each one a trip to the provider). */
export const signInStartsPerMinute = 30;

/** The sign-in under way that this browser's cookie carries, if it opens and is still live. */
function pendingOf(ctx: ApiContext, cookie: string | undefined): OidcPending | undefined {
  if (!cookie) return undefined;
  try {
    const sealed = ctx.sealer.fromStored(Buffer.from(cookie, 'base64url'));
    const pending = ctx.sealer.unsealOidcPending(pendingPurpose, sealed);
    return pending.expires_at > Date.now() ? pending : undefined;
  } catch (error) {
    if (error instanceof SealingError) return undefined;
    throw error;
  }
}

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
  const starts = new RateWindow(signInStartsPerMinute);

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
          429: media('too many sign-ins started from this address; Retry-After says when'),
          503: media('the provider could not be reached'),
        },
      },
    },
    async (request, reply) => {
      const oidc = requireOidc(ctx, request);
      const taken = starts.take(clientKey(request.ip));
      if (!taken.ok) {
        reply.header('retry-after', String(taken.retryAfterS));
        throw new Problem(429, 'too many sign-ins started from this address; try again shortly');
      }
      const checks = OidcRelyingParty.newChecks();
      const url = await oidc.authorizationUrl(checks);
      const next = safeNext(request.query.next) ?? null;
      // Kept sealed in the browser, not in the database: a sign-in never finished costs nothing.
      const pending: OidcPending = {
        type: 'oidc_pending',
        ...checks,
        next,
        expires_at: Date.now() + pendingLifetimeS * 1000,
      };
      const sealed = ctx.sealer.seal(pendingPurpose, pending).toBytes().toString('base64url');
      // Lax: it must come back on the provider's redirect, a top-level navigation from its site.
      setCookie(reply, pendingCookie, sealed, {
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
      const checks = pendingOf(ctx, readCookie(request, pendingCookie, 2048));
      // Cleared before anything is checked: a callback replayed in this browser finds nothing to
      // match, and the provider takes its code once.
      clearCookie(reply, pendingCookie, overHttps(request, ctx.publicUrl));
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
