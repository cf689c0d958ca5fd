import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  allowAuthorization,
  beginAuthorization,
  consentView,
  denyAuthorization,
} from '../../application/mcp-oauth/authorization.js';
import { oauthNames } from '../../application/mcp-oauth/resource.js';
import { InvalidInputError } from '../../domain/errors.js';
import type { ApiContext } from '../context.js';
import { clientKey, RateWindow } from '../rate-window.js';
import { empty, media } from '../route-schemas.js';
import { toLoginAnswer, visitorOf } from './admission.js';
import { htmlSecurityHeaders, sendPage, webFormTags as tags } from './layout.js';
import { oauthConsentPage } from './oauth-consent-page.js';
import { Problem } from '../problem.js';

/**
 * OAuth's parameters are printable ASCII (RFC 6749 appendix A, VSCHAR), and short enough that a
 * whole request, percent-encoded, stays within the server's 16 KiB of headers.
 */
const param = (max: number) =>
  z
    .string()
    .max(max)
    .regex(/^[\x20-\x7e]*$/, 'printable ASCII only')
    .optional();
/** OAuth's authorization request (OAuth 2.1 §4.1.1, RFC 8707); other parameters are ignored. */
const authorizationQuery = z.object({
  response_type: param(20),
  client_id: param(100),
  redirect_uri: param(1000),
  code_challenge: param(128),
  code_challenge_method: param(10),
  state: param(500),
  scope: param(500),
  resource: param(500),
});
const consentParams = z.object({ id: z.uuid() }).strict();
const consentForm = z
  .object({ csrf: z.string(), decision: z.enum(['allow', 'deny']), profile: z.uuid().optional() })
  .strict();

/** Authorization requests one client address may start a minute. */
const authorizationsPerMinute = 30;

const config = { caller: 'browser' } as const;

/**
 * The form may post only to us; the answer to its post is a redirect to the client, which
 * browsers hold to the form's `form-action` too, so the client's origin (or scheme) is added.
 */
function consentPolicy(redirectUri: string): string {
  const url = new URL(redirectUri);
  const target = url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : url.protocol;
  return htmlSecurityHeaders['content-security-policy'].replace(
    "form-action 'self'",
    `form-action 'self' ${target}`,
  );
}

/**
 * The authorization endpoint of the gate's OAuth server, for the remote MCP endpoint's clients:
 * the request is checked, then the person signs in (through the sign-in the web app has) and
 * picks one of their workspace's run profiles, or declines.
 */
export function oauthAuthorizationRoutes(server: FastifyInstance, ctx: ApiContext) {
  const web = server.withTypeProvider<ZodTypeProvider>();
  const names = oauthNames(ctx.publicUrl);
  const starts = new RateWindow(authorizationsPerMinute);

  web.get(
    '/oauth/authorize',
    {
      config: { caller: 'anyone' },
      schema: {
        operationId: 'oauthAuthorize',
        summary:
          'OAuth authorization endpoint (PKCE S256 only): on to sign in and pick a run profile',
        tags,
        querystring: authorizationQuery,
        response: {
          303: empty('to the consent page'),
          400: media(
            'refused on this page, never sent on to the client: an unknown client, a redirect_uri it did not register, or a request without PKCE (S256), of another response type or for another resource',
          ),
          429: media('too many authorizations started from this address'),
        },
      },
    },
    async (request, reply) => {
      const taken = starts.take(clientKey(request.ip));
      if (!taken.ok) {
        reply.header('retry-after', String(taken.retryAfterS));
        throw new Problem(
          429,
          'too many authorizations started from this address; try again shortly',
        );
      }
      const { consent } = await beginAuthorization(ctx.pool, names, request.query);
      return reply.redirect(`/oauth/consent/${consent}`, 303);
    },
  );

  web.get(
    '/oauth/consent/:id',
    {
      config,
      schema: {
        operationId: 'oauthConsentPage',
        summary: 'Allow an MCP client to act as a run of yours: pick a run profile',
        tags,
        params: consentParams,
        response: { 200: media('the page'), 303: toLoginAnswer, 404: media('no such request') },
      },
    },
    async (request, reply) => {
      const session = visitorOf(request);
      const view = await consentView(ctx.pool, request.params.id, session.member);
      reply.header('content-security-policy', consentPolicy(view.request.redirect_uri));
      return sendPage(reply, 200, oauthConsentPage(session, view));
    },
  );

  web.post(
    '/oauth/consent/:id',
    {
      config: {
        ...config,
        web: { signedOut: 'your sign-in has ended; start again from the client' },
      },
      schema: {
        operationId: 'oauthConsent',
        summary:
          'Allow (a run is created from the picked profile, invoked by you) or deny; back to the client',
        tags,
        consumes: ['application/x-www-form-urlencoded'],
        params: consentParams,
        body: consentForm,
        response: {
          303: empty('back to the client, with a code or access_denied'),
          400: media('no profile picked, or one not of your workspace'),
          404: media('the request was answered already or expired'),
        },
      },
    },
    async (request, reply) => {
      const { member } = visitorOf(request);
      const { id } = request.params;
      const { decision, profile } = request.body;
      if (decision === 'deny') {
        return reply.redirect(await denyAuthorization(ctx.pool, names, id), 303);
      }
      if (profile === undefined) {
        throw new InvalidInputError('pick a run profile', [
          { path: 'body.profile', message: 'required to allow' },
        ]);
      }
      return reply.redirect(await allowAuthorization(ctx.pool, names, id, member, profile), 303);
    },
  );
}
