import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  authenticateClient,
  registerClient,
  type PresentedClient,
} from '../../application/mcp-oauth/clients.js';
import { OAuthError } from '../../application/mcp-oauth/oauth-error.js';
import { oauthNames } from '../../application/mcp-oauth/resource.js';
import {
  exchangeCode,
  refreshTokens,
  revokeToken,
  type OAuthDeps,
} from '../../application/mcp-oauth/tokens.js';
import type { ApiContext } from '../context.js';
import { problemFor } from '../error-mapping.js';
import { Problem } from '../problem.js';
import { clientKey, RateWindow } from '../rate-window.js';
import { anyObject, empty, json } from '../route-schemas.js';
import { parseForm } from '../web/form-body.js';
import { protectedResourceRoutes } from './protected-resource.js';

/** Registrations one client address may make a minute: each is a row that stays. */
const registrationsPerMinute = 20;
const tokenBodyLimitBytes = 16 * 1024;

const field = (max: number) => z.string().max(max).optional();
/** A token request's fields (RFC 6749 §4.1.3, §6; RFC 8707); others are ignored. */
const tokenForm = z.object({
  grant_type: z.string().max(100),
  code: field(200),
  code_verifier: field(200),
  redirect_uri: field(2000),
  refresh_token: field(200),
  resource: field(2000),
  scope: field(1000),
  client_id: field(200),
  client_secret: field(200),
});
const revocationForm = z.object({
  token: z.string().max(200),
  token_type_hint: field(50),
  client_id: field(200),
  client_secret: field(200),
});

const oauthErrorAnswer = z.object({
  error: z.string(),
  error_description: z.string().optional(),
});
const tokenAnswer = z.object({
  access_token: z.string(),
  token_type: z.literal('Bearer'),
  expires_in: z.number().int(),
  refresh_token: z.string(),
  scope: z.string().optional(),
});
const authorizationServerMetadata = z.object({
  issuer: z.string(),
  authorization_endpoint: z.string(),
  token_endpoint: z.string(),
  registration_endpoint: z.string(),
  revocation_endpoint: z.string(),
  response_types_supported: z.array(z.string()),
  grant_types_supported: z.array(z.string()),
  code_challenge_methods_supported: z.array(z.string()),
  token_endpoint_auth_methods_supported: z.array(z.string()),
  revocation_endpoint_auth_methods_supported: z.array(z.string()),
  authorization_response_iss_parameter_supported: z.boolean(),
  service_documentation: z.string().optional(),
});

const oauthError = (description: string) => ({
  description,
  content: { 'application/json': { schema: oauthErrorAnswer } },
});

/** A Basic header's client id and secret, each form-decoded (RFC 6749 §2.3.1). */
function basicCredentials(request: FastifyRequest): { id: string; secret: string } | undefined {
  const match = /^Basic ([A-Za-z0-9+/=]{1,1024})$/.exec(request.headers.authorization ?? '');
  if (!match?.[1]) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  const part = (text: string) => decodeURIComponent(text.replace(/\+/g, ' '));
  try {
    return { id: part(decoded.slice(0, colon)), secret: part(decoded.slice(colon + 1)) };
  } catch {
    return undefined;
  }
}

function presentedClient(
  request: FastifyRequest,
  body: { client_id?: string | undefined; client_secret?: string | undefined },
): PresentedClient {
  const basic = basicCredentials(request);
  if (basic) {
    if (body.client_secret !== undefined) {
      throw new OAuthError('invalid_request', 'the client authenticated twice (header and body)');
    }
    if (body.client_id !== undefined && body.client_id !== basic.id) {
      throw new OAuthError('invalid_request', 'client_id differs from the Authorization header');
    }
    return { clientId: basic.id, secret: basic.secret, via: 'basic' };
  }
  return {
    clientId: body.client_id,
    secret: body.client_secret,
    via: body.client_secret === undefined ? 'none' : 'post',
  };
}

/** Every error of these endpoints in OAuth's own shape; a field that failed is named. */
function asOAuthError(err: unknown, registering: boolean): OAuthError | undefined {
  if (err instanceof OAuthError) return err;
  const problem = problemFor(err);
  if (problem.status >= 500) return undefined;
  const fields = problem.options.errors?.map((e) => `${e.path}: ${e.message}`).join('; ');
  const description = fields ? `${problem.detail} (${fields})` : problem.detail;
  return new OAuthError(
    registering ? 'invalid_client_metadata' : 'invalid_request',
    description,
    problem.status,
  );
}

/**
 * The gate as the OAuth authorization server of its remote MCP endpoint, and that endpoint's
 * protected resource metadata (RFC 9728): its metadata (RFC 8414),
 * dynamic client registration (RFC 7591), the token endpoint (authorization code with PKCE,
 * rotating refresh tokens) and revocation (RFC 7009). The authorization endpoint is a web page
 * (`src/api/web/oauth-authorization-routes.ts`). Answers are OAuth's JSON, never problem+json.
 */
export function authorizationServerRoutes(app: FastifyInstance, ctx: ApiContext): void {
  void app.register((plugin, _options, done) => {
    const names = oauthNames(ctx.publicUrl);
    const deps: OAuthDeps = { pool: ctx.pool, sealer: ctx.sealer, names };
    const registrations = new RateWindow(registrationsPerMinute);
    plugin.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: tokenBodyLimitBytes },
      (_request, body, parsed) => {
        try {
          parsed(null, parseForm(body as string));
        } catch (err) {
          parsed(err as Error, undefined);
        }
      },
    );
    plugin.addHook('onSend', async (_request, reply, payload) => {
      // Public metadata and client endpoints: a browser-based client may call them; no cookie
      // is ever read here, so any origin may.
      void reply.header('access-control-allow-origin', '*');
      void reply.header('cache-control', 'no-store');
      return payload;
    });
    plugin.setErrorHandler((err, request, reply) => {
      const registering = request.routeOptions.url === '/oauth/register';
      const refusal = asOAuthError(err, registering);
      if (!refusal) {
        request.log.error({ err }, 'OAuth request failed');
        return reply.code(problemFor(err).status).send({
          error: 'server_error',
          error_description: 'the gate could not answer; try again',
        });
      }
      if (refusal.status === 401) {
        void reply.header('www-authenticate', 'Basic realm="fluidbox gate"');
      }
      return reply
        .code(refusal.status)
        .type('application/json')
        .send({ error: refusal.code, error_description: refusal.description });
    });
    protectedResourceRoutes(plugin, ctx);
    // A browser-based client's preflight: these answers hold no cookie and no secret of ours.
    for (const path of [
      '/.well-known/oauth-protected-resource/mcp',
      '/.well-known/oauth-authorization-server',
      '/oauth/register',
      '/oauth/token',
      '/oauth/revoke',
    ]) {
      plugin.options(path, { config: { caller: 'anyone' }, schema: { hide: true } }, (_r, reply) =>
        reply
          .code(204)
          .header('access-control-allow-methods', 'GET, POST')
          .header(
            'access-control-allow-headers',
            'authorization, content-type, mcp-protocol-version',
          )
          .header('access-control-max-age', '600')
          .send(),
      );
    }
    const app = plugin.withTypeProvider<ZodTypeProvider>();
    const tags = ['oauth'];
    const config = { caller: 'anyone' } as const;

    app.get(
      '/.well-known/oauth-authorization-server',
      {
        config,
        schema: {
          operationId: 'oauthAuthorizationServerMetadata',
          summary: "The gate's OAuth authorization server metadata (RFC 8414)",
          tags,
          response: { 200: json('the metadata', authorizationServerMetadata) },
        },
      },
      () => ({
        issuer: names.issuer,
        authorization_endpoint: `${names.issuer}/oauth/authorize`,
        token_endpoint: `${names.issuer}/oauth/token`,
        registration_endpoint: `${names.issuer}/oauth/register`,
        revocation_endpoint: `${names.issuer}/oauth/revoke`,
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: [
          'none',
          'client_secret_post',
          'client_secret_basic',
        ],
        revocation_endpoint_auth_methods_supported: [
          'none',
          'client_secret_post',
          'client_secret_basic',
        ],
        authorization_response_iss_parameter_supported: true,
      }),
    );

    app.post(
      '/oauth/register',
      {
        config,
        schema: {
          operationId: 'oauthRegisterClient',
          summary: 'Dynamic client registration (RFC 7591): a secret is returned once, if any',
          tags,
          body: anyObject,
          response: {
            201: json('registered', anyObject),
            400: oauthError('invalid_redirect_uri or invalid_client_metadata, naming the field'),
            429: oauthError('too many registrations from this address'),
          },
        },
      },
      async (request, reply) => {
        const taken = registrations.take(clientKey(request.ip));
        if (!taken.ok) {
          reply.header('retry-after', String(taken.retryAfterS));
          throw new Problem(429, 'too many registrations from this address; try again shortly');
        }
        return reply.code(201).send(await registerClient(ctx.pool, request.body));
      },
    );

    app.post(
      '/oauth/token',
      {
        config,
        schema: {
          operationId: 'oauthToken',
          summary:
            'OAuth token endpoint: an authorization code (with its PKCE verifier) or a refresh token for tokens of the run',
          tags,
          consumes: ['application/x-www-form-urlencoded'],
          body: tokenForm,
          response: {
            200: json('the run’s access token and a new refresh token', tokenAnswer),
            400: oauthError('invalid_request, invalid_grant, unsupported_grant_type, …'),
            401: oauthError('invalid_client'),
          },
        },
      },
      async (request) => {
        const body = request.body;
        const client = await authenticateClient(ctx.pool, presentedClient(request, body));
        if (body.grant_type === 'authorization_code') {
          if (body.code === undefined) throw new OAuthError('invalid_request', 'code is required');
          return exchangeCode(deps, client, {
            code: body.code,
            code_verifier: body.code_verifier,
            redirect_uri: body.redirect_uri,
            resource: body.resource,
          });
        }
        if (body.grant_type === 'refresh_token') {
          if (body.refresh_token === undefined) {
            throw new OAuthError('invalid_request', 'refresh_token is required');
          }
          return refreshTokens(deps, client, body.refresh_token, body.resource);
        }
        throw new OAuthError(
          'unsupported_grant_type',
          'grant_type must be authorization_code or refresh_token',
        );
      },
    );

    app.post(
      '/oauth/revoke',
      {
        config,
        schema: {
          operationId: 'oauthRevoke',
          summary: 'Token revocation (RFC 7009): ends the grant the token belongs to',
          tags,
          consumes: ['application/x-www-form-urlencoded'],
          body: revocationForm,
          response: {
            200: empty('revoked, or nothing to revoke'),
            401: oauthError('invalid_client'),
          },
        },
      },
      async (request, reply) => {
        const client = await authenticateClient(ctx.pool, presentedClient(request, request.body));
        await revokeToken(deps, client, request.body.token);
        return reply.code(200).send(null);
      },
    );
    done();
  });
}
