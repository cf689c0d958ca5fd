/**
 * A real OAuth-protected MCP server, built from the MCP SDK's server-side auth: its
 * authorization router (metadata, dynamic registration, authorize, token, revoke) and bearer
 * middleware, over an in-memory provider whose access tokens expire in seconds and whose
 * refresh tokens are single-use. The consent page is a plain form a browser clicks through.
 * Every secret it issues starts with `canary-`, so a test can look for them where none may be.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import {
  mcpAuthRouter,
  getOAuthProtectedResourceMetadataUrl,
} from '@modelcontextprotocol/sdk/server/auth/router.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import {
  InvalidGrantError,
  InvalidTokenError,
} from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type {
  AuthorizationParams,
  OAuthServerProvider,
} from '@modelcontextprotocol/sdk/server/auth/provider.js';
import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type {
  OAuthClientInformationFull,
  OAuthTokenRevocationRequest,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { createNoteTool, searchNotesTool } from './rugpull-upstream.js';

/** The little of express (the SDK's auth router runs on it; it ships no types) this server uses. */
interface ExpressRequest extends IncomingMessage {
  body: unknown;
  auth?: AuthInfo;
}
interface ExpressResponse extends ServerResponse {
  type(mediaType: string): ExpressResponse;
  send(body: string): void;
  redirect(status: number, url: string): void;
}
type Handler = (req: ExpressRequest, res: ExpressResponse) => unknown;
interface ExpressApp {
  use(handler: unknown): void;
  post(path: string, ...handlers: unknown[]): void;
  all(path: string, ...handlers: unknown[]): void;
  listen(port: number, host: string, listening: () => void): Server;
}
interface Express {
  (): ExpressApp;
  json(): unknown;
  urlencoded(options: { extended: boolean }): unknown;
}
const express = createRequire(import.meta.url)('express') as Express;

const secret = (what: string) => `canary-${what}-${randomBytes(16).toString('hex')}`;

interface Grant {
  clientId: string;
  scopes: string[];
  resource: string | undefined;
}

/** A `tools/call` that reached the MCP endpoint past the bearer check. */
export interface OAuthUpstreamCall {
  tool: string;
  /** The bearer token it carried. */
  token: string;
}

export interface OAuthUpstream {
  /** The MCP endpoint (`http://localhost:<port>/mcp`): another site than the gate's 127.0.0.1. */
  url: string;
  calls: OAuthUpstreamCall[];
  /** Every access token, refresh token and client secret it issued. */
  issued: string[];
  /** The access tokens issued, in order. */
  accessTokens: string[];
  /** The resource indicators (RFC 8707) the authorize and token requests named. */
  resources: (string | undefined)[];
  /** Code challenges' methods seen at the authorize endpoint. */
  challenges: number;
  refreshes: number;
  /** A refresh token presented after it was used: two refreshes raced. */
  reusedRefreshTokens: number;
  revoked: string[];
  registrations: number;
  /** A client registered ahead, as an operator would with the server's own console. */
  preRegister(redirectUri: string): { client_id: string; client_secret: string };
  /** From now on every refresh is refused with invalid_grant. */
  refuseRefreshes(): void;
  /** Every access token issued so far is unknown from now on (answered 401). */
  forgetAccessTokens(): void;
  close(): Promise<void>;
}

export async function startOAuthUpstream(
  options: { accessTokenLifetimeS?: number } = {},
): Promise<OAuthUpstream> {
  const lifetimeS = options.accessTokenLifetimeS ?? 3;
  const clients = new Map<string, OAuthClientInformationFull>();
  const codes = new Map<string, Grant & { challenge: string; redirectUri: string }>();
  const accessTokens = new Map<string, Grant & { expiresAt: number }>();
  const refreshTokens = new Map<string, Grant & { used: boolean }>();
  let refusing = false;

  const state: OAuthUpstream = {
    url: '',
    calls: [],
    issued: [],
    accessTokens: [],
    resources: [],
    challenges: 0,
    refreshes: 0,
    reusedRefreshTokens: 0,
    revoked: [],
    registrations: 0,
    refuseRefreshes: () => {
      refusing = true;
    },
    forgetAccessTokens: () => {
      accessTokens.clear();
    },
    preRegister: (redirectUri) => {
      const client = {
        client_id: `console-${randomBytes(8).toString('hex')}`,
        client_secret: secret('client-secret'),
      };
      state.issued.push(client.client_secret);
      clients.set(client.client_id, { ...client, redirect_uris: [redirectUri] });
      return client;
    },
    close: () => Promise.resolve(),
  };

  function issue(grant: Grant): OAuthTokens {
    const access = secret('access');
    const refresh = secret('refresh');
    state.issued.push(access, refresh);
    state.accessTokens.push(access);
    accessTokens.set(access, { ...grant, expiresAt: Date.now() / 1000 + lifetimeS });
    refreshTokens.set(refresh, { ...grant, used: false });
    return {
      access_token: access,
      token_type: 'Bearer',
      expires_in: lifetimeS,
      refresh_token: refresh,
      scope: grant.scopes.join(' '),
    };
  }

  const clientsStore: OAuthRegisteredClientsStore = {
    getClient: (id) => clients.get(id),
    registerClient: (client) => {
      const full = {
        ...client,
        client_id: `client-${randomBytes(8).toString('hex')}`,
        client_id_issued_at: Math.floor(Date.now() / 1000),
        client_secret: secret('client-secret'),
      } as OAuthClientInformationFull;
      state.issued.push(full.client_secret!);
      state.registrations += 1;
      clients.set(full.client_id, full);
      return full;
    },
  };

  const provider: OAuthServerProvider = {
    clientsStore,
    authorize(
      client: OAuthClientInformationFull,
      params: AuthorizationParams,
      res: ExpressResponse,
    ) {
      return settle(() => {
        state.challenges += 1;
        state.resources.push(params.resource?.href);
        const fields = {
          client_id: client.client_id,
          redirect_uri: params.redirectUri,
          state: params.state ?? '',
          challenge: params.codeChallenge,
          scopes: (params.scopes ?? []).join(' '),
          resource: params.resource?.href ?? '',
        };
        const hidden = Object.entries(fields)
          .map(([name, value]) => `<input type="hidden" name="${name}" value="${escape(value)}">`)
          .join('');
        res
          .type('html')
          .send(
            `<!doctype html><title>Consent</title><h1>Allow fluidbox gate to use your notes?</h1>` +
              `<form method="post" action="/consent">${hidden}` +
              `<button name="answer" value="allow">Allow</button>` +
              `<button name="answer" value="deny">Deny</button></form>`,
          );
      });
    },
    challengeForAuthorizationCode(_client, code) {
      return settle(() => {
        const grant = codes.get(code);
        if (!grant) throw new InvalidGrantError('unknown code');
        return grant.challenge;
      });
    },
    exchangeAuthorizationCode(client, code, _verifier, redirectUri, resource) {
      return settle(() => {
        const grant = codes.get(code);
        codes.delete(code);
        if (!grant || grant.clientId !== client.client_id) throw new InvalidGrantError('bad code');
        if (redirectUri !== undefined && redirectUri !== grant.redirectUri)
          throw new InvalidGrantError('redirect_uri differs');
        state.resources.push(resource?.href);
        return issue(grant);
      });
    },
    exchangeRefreshToken(client, refreshToken, _scopes, resource) {
      return settle(() => {
        const grant = refreshTokens.get(refreshToken);
        if (grant?.used) state.reusedRefreshTokens += 1;
        if (refusing || !grant || grant.used || grant.clientId !== client.client_id)
          throw new InvalidGrantError('the refresh token is not valid');
        grant.used = true;
        state.refreshes += 1;
        state.resources.push(resource?.href);
        return issue(grant);
      });
    },
    verifyAccessToken(token: string): Promise<AuthInfo> {
      return settle(() => {
        const grant = accessTokens.get(token);
        if (!grant) throw new InvalidTokenError('unknown or revoked token');
        return {
          token,
          clientId: grant.clientId,
          scopes: grant.scopes,
          expiresAt: grant.expiresAt,
          ...(grant.resource && { resource: new URL(grant.resource) }),
        };
      });
    },
    revokeToken(_client, request: OAuthTokenRevocationRequest) {
      return settle(() => {
        state.revoked.push(request.token);
        accessTokens.delete(request.token);
        refreshTokens.delete(request.token);
      });
    },
  };

  const app = express();
  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(0, 'localhost', () => {
      resolve(listening);
    });
  });
  const { port } = server.address() as AddressInfo;
  const base = new URL(`http://localhost:${port}/`);
  const mcpUrl = new URL('/mcp', base);
  state.url = mcpUrl.href;

  const unlimited = { rateLimit: false as const };
  app.use(
    mcpAuthRouter({
      provider,
      issuerUrl: base,
      resourceServerUrl: mcpUrl,
      scopesSupported: ['notes'],
      authorizationOptions: unlimited,
      tokenOptions: unlimited,
      clientRegistrationOptions: unlimited,
      revocationOptions: unlimited,
    }),
  );
  const consent: Handler = (req, res) => {
    const form = req.body as Record<string, string>;
    const back = new URL(form.redirect_uri!);
    if (form.state) back.searchParams.set('state', form.state);
    if (form.answer !== 'allow') {
      back.searchParams.set('error', 'access_denied');
      res.redirect(302, back.href);
      return;
    }
    const code = `code-${randomBytes(16).toString('hex')}`;
    codes.set(code, {
      clientId: form.client_id!,
      scopes: form.scopes ? form.scopes.split(' ') : [],
      resource: form.resource || undefined,
      challenge: form.challenge!,
      redirectUri: form.redirect_uri!,
    });
    back.searchParams.set('code', code);
    res.redirect(302, back.href);
  };
  app.post('/consent', express.urlencoded({ extended: false }), consent);
  app.all(
    '/mcp',
    requireBearerAuth({
      verifier: provider,
      resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(mcpUrl),
    }),
    express.json(),
    (async (req, res) => {
      const token = req.auth!.token;
      const mcp = new McpServer({ name: 'oauth-upstream', version: '1.0.0' });
      const tools = [searchNotesTool, createNoteTool];
      mcp.server.registerCapabilities({ tools: {} });
      mcp.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
      mcp.server.setRequestHandler(CallToolRequestSchema, (request): CallToolResult => {
        state.calls.push({ tool: request.params.name, token });
        return { content: [{ type: 'text', text: `done: ${request.params.name}` }] };
      });
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on('close', () => {
        void transport.close();
        void mcp.close();
      });
      await mcp.connect(transport);
      await transport.handleRequest(req, res, req.body);
    }) satisfies Handler,
  );

  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => {
        resolve();
      });
    });
  return state;
}

/** A provider method's answer: what `work` returns, or its throw as a rejection. */
function settle<T>(work: () => T): Promise<T> {
  return new Promise((resolve) => {
    resolve(work());
  });
}

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
