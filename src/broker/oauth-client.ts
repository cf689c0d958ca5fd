/**
 * The gate as an OAuth client of an MCP server, as the MCP authorization spec describes, through
 * the MCP SDK: discovery (RFC 9728, then RFC 8414 or OpenID discovery), dynamic registration
 * (RFC 7591) unless a client was given, authorization code with PKCE (S256) and the resource
 * indicator (RFC 8707), refresh, and revocation (RFC 7009). No I/O but the servers': what must be
 * kept is handed back to the caller, which seals it.
 */
import {
  auth,
  refreshAuthorization,
  selectClientAuthMethod,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
} from '@modelcontextprotocol/sdk/client/auth.js';
import { InvalidGrantError, OAuthError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { UnreachableAddressError } from './address-reach.js';
import type { OAuthAttempt, OAuthCustody } from './oauth-custody.js';
import { cappedResponse, reachFetch, type Dial } from './reach-fetch.js';
import { GateError } from '../domain/errors.js';

/**
 * Bound on one exchange (a start, a completion, a refresh, a revocation): all its requests and
 * their redirects together, well inside a refresh's lease.
 */
export const exchangeTimeoutMs = 10_000;
/** Bound on each answer's body: metadata, a registration, tokens are a few kilobytes. */
export const oauthAnswerMaxBytes = 256 * 1024;

/** Why an OAuth exchange failed; the message never holds a token, a code or a secret. */
export class OAuthFlowError extends GateError {
  override name = 'OAuthFlowError';
  readonly code = 'oauth_flow_failed';
}

/** The authorization server refused the refresh token: only the owner can mend it, by reconnecting. */
export class RefreshRefusedError extends GateError {
  override name = 'RefreshRefusedError';
  readonly code = 'refresh_refused';
}

/**
 * The fetch of one exchange: bounded in time (all its requests together) and in bytes, and reaching only
 * addresses as public as the connection's own server (./address-reach.ts), each redirect's too. A
 * refused address is an OAuthFlowError that names it, never a TypeError the SDK would take for a
 * network failure.
 */
function exchangeFetch(dial: Dial): FetchLike {
  const send = reachFetch(dial, exchangeTimeoutMs);
  // One deadline for the whole exchange, from its first request: never one per request or hop.
  const deadline = AbortSignal.timeout(exchangeTimeoutMs);
  return async (url, init) => {
    if (deadline.aborted) {
      throw new OAuthFlowError(`the exchange took longer than ${exchangeTimeoutMs} ms`);
    }
    const signal = init?.signal ? AbortSignal.any([init.signal, deadline]) : deadline;
    try {
      const response = await send(url, { ...init, signal });
      const from = new URL(url).origin;
      return cappedResponse(
        response,
        oauthAnswerMaxBytes,
        () =>
          new OAuthFlowError(`an answer from ${from} was larger than ${oauthAnswerMaxBytes} bytes`),
      );
    } catch (error) {
      if (error instanceof UnreachableAddressError) throw new OAuthFlowError(error.message);
      throw error;
    }
  };
}

function clientMetadata(redirectUrl: string): OAuthClientMetadata {
  return {
    client_name: 'fluidbox gate',
    redirect_uris: [redirectUrl],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
  };
}

/**
 * One exchange's OAuthClientProvider: it starts from what the gate's store holds for the
 * connection (a client, the discovery, a verifier) and collects what the exchange produced. It
 * never offers stored tokens, so `auth()` never refreshes here: the gate refreshes on its own
 * schedule, under its own lock.
 */
class ExchangeProvider implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined;
  discovery: OAuthDiscoveryState | undefined;
  verifier: string | undefined;
  authorizationUrl: URL | undefined;
  saved: OAuthTokens | undefined;

  constructor(
    readonly redirectUrl: string,
    start: {
      client?: OAuthClientInformationMixed;
      discovery?: OAuthDiscoveryState;
      verifier?: string;
    },
    private readonly stateValue?: string,
  ) {
    this.client = start.client;
    this.discovery = start.discovery;
    this.verifier = start.verifier;
  }

  get clientMetadata(): OAuthClientMetadata {
    return clientMetadata(this.redirectUrl);
  }
  state(): string {
    if (this.stateValue === undefined) throw new OAuthFlowError('no state for this exchange');
    return this.stateValue;
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(client: OAuthClientInformationMixed) {
    this.client = client;
  }
  tokens() {
    return undefined;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier(): string {
    if (this.verifier === undefined) throw new OAuthFlowError('no PKCE verifier for this exchange');
    return this.verifier;
  }
  saveDiscoveryState(state: OAuthDiscoveryState) {
    // Before any registration or exchange: metadata that names another issuer is never used.
    verifiedIssuer(state);
    this.discovery = state;
  }
  discoveryState() {
    return this.discovery;
  }
}

function flowFailure(error: unknown, what: string): Error {
  if (error instanceof OAuthFlowError || error instanceof RefreshRefusedError) return error;
  if (error instanceof OAuthError) {
    return new OAuthFlowError(`${what}: the authorization server answered ${error.errorCode}`);
  }
  const detail = error instanceof Error ? error.message : String(error);
  return new OAuthFlowError(`${what}: ${detail.slice(0, 300)}`);
}

/** The authorization URL to send a person to, and what the callback will need (to be sealed). */
export async function beginAuthorization(
  serverUrl: string,
  options: {
    redirectUrl: string;
    state: string;
    scope?: string | undefined;
    client?: OAuthClientInformationMixed | undefined;
    dial: Dial;
  },
): Promise<{ authorizationUrl: URL; attempt: OAuthAttempt }> {
  const provider = new ExchangeProvider(
    options.redirectUrl,
    options.client ? { client: options.client } : {},
    options.state,
  );
  try {
    const result = await auth(provider, {
      serverUrl,
      ...(options.scope && { scope: options.scope }),
      fetchFn: exchangeFetch(options.dial),
    });
    const { authorizationUrl, verifier, client, discovery } = provider;
    if (result !== 'REDIRECT' || !authorizationUrl || !verifier || !client || !discovery) {
      throw new OAuthFlowError('the authorization server did not start an authorization');
    }
    return { authorizationUrl, attempt: { type: 'oauth_attempt', verifier, client, discovery } };
  } catch (error) {
    throw flowFailure(error, 'could not start the authorization');
  }
}

/** Whether two issuer URLs are identical, a bare origin and its "/" being the same URL. */
function sameIssuer(a: string, b: string): boolean {
  try {
    return new URL(a).href === new URL(b).href;
  } catch {
    return false;
  }
}

/**
 * The issuer of a discovery, verified: the metadata's `issuer` must be identical to the
 * authorization server URL it was fetched for, path included (RFC 8414 §3.3, OpenID Connect
 * Discovery §4.3), or the metadata is refused; a server cannot claim another's name.
 */
function verifiedIssuer(discovery: OAuthDiscoveryState): string {
  const claimed = (discovery.authorizationServerMetadata as { issuer?: unknown } | undefined)
    ?.issuer;
  const fetchedFor = discovery.authorizationServerUrl;
  if (claimed === undefined) return fetchedFor;
  if (typeof claimed !== 'string' || !sameIssuer(claimed, fetchedFor)) {
    throw new OAuthFlowError(
      `the authorization server at ${fetchedFor} published metadata naming the issuer ${JSON.stringify(claimed).slice(0, 200)}, not itself; refused`,
    );
  }
  return claimed;
}

/** The verified issuer an attempt was sent to, and whether it says its answers name it (RFC 9207). */
export function attemptIssuer(discovery: OAuthDiscoveryState): {
  issuer: string;
  sendsIss: boolean;
} {
  const metadata = discovery.authorizationServerMetadata as
    { authorization_response_iss_parameter_supported?: boolean } | undefined;
  return {
    issuer: verifiedIssuer(discovery),
    sendsIss: metadata?.authorization_response_iss_parameter_supported === true,
  };
}

/** When tokens answered `expires_in` seconds ago are due, in epoch ms. */
function expiry(tokens: OAuthTokens, now: number): number | undefined {
  return tokens.expires_in === undefined ? undefined : now + tokens.expires_in * 1000;
}

/** Exchanges the code the person brought back for tokens: the custody to seal. */
export async function completeAuthorization(
  serverUrl: string,
  attempt: OAuthAttempt,
  options: { redirectUrl: string; code: string; scope?: string | undefined; dial: Dial },
): Promise<OAuthCustody> {
  const provider = new ExchangeProvider(options.redirectUrl, attempt);
  const now = Date.now();
  try {
    const result = await auth(provider, {
      serverUrl,
      authorizationCode: options.code,
      ...(options.scope && { scope: options.scope }),
      fetchFn: exchangeFetch(options.dial),
    });
    if (result !== 'AUTHORIZED' || !provider.saved) {
      throw new OAuthFlowError('the authorization server issued no tokens');
    }
    const expiresAt = expiry(provider.saved, now);
    return {
      type: 'oauth',
      client: provider.client ?? attempt.client,
      discovery: provider.discovery ?? attempt.discovery,
      tokens: provider.saved,
      ...(expiresAt !== undefined && { expires_at: expiresAt }),
    };
  } catch (error) {
    throw flowFailure(error, 'could not complete the authorization');
  }
}

/** The resource indicator the authorization was made for (RFC 8707), sent verbatim. */
const resourceOf = (discovery: OAuthDiscoveryState) => discovery.resourceMetadata?.resource;

/**
 * New tokens for a custody's refresh token. A server that refuses the grant (`invalid_grant`),
 * or a custody with no refresh token, is `RefreshRefusedError`: the owner must reconnect.
 */
export async function refreshCustody(dial: Dial, custody: OAuthCustody): Promise<OAuthCustody> {
  const { client, discovery, tokens } = custody;
  if (!client || !discovery || !tokens?.refresh_token) {
    throw new RefreshRefusedError('the server issued no refresh token');
  }
  const now = Date.now();
  try {
    verifiedIssuer(discovery);
    const resource = resourceOf(discovery);
    const fresh = await refreshAuthorization(discovery.authorizationServerUrl, {
      ...(discovery.authorizationServerMetadata && {
        metadata: discovery.authorizationServerMetadata,
      }),
      clientInformation: client,
      refreshToken: tokens.refresh_token,
      ...(resource !== undefined && { resource: new URL(resource) }),
      fetchFn: exchangeFetch(dial),
    });
    const expiresAt = expiry(fresh, now);
    return {
      type: 'oauth',
      client,
      discovery,
      tokens: fresh,
      ...(expiresAt !== undefined && { expires_at: expiresAt }),
      ...(custody.private_network && { private_network: true }),
    };
  } catch (error) {
    if (error instanceof InvalidGrantError) {
      throw new RefreshRefusedError('the authorization server refused the refresh token');
    }
    throw flowFailure(error, 'could not refresh the access token');
  }
}

interface RevocationMetadata {
  revocation_endpoint?: string;
  revocation_endpoint_auth_methods_supported?: string[];
  token_endpoint_auth_methods_supported?: string[];
}

/**
 * Revokes a custody's tokens at the authorization server (RFC 7009), the refresh token first
 * (which ends the grant at most servers). Answers false when the server offers no revocation.
 */
export async function revokeCustody(dial: Dial, custody: OAuthCustody): Promise<boolean> {
  // RFC 8414 metadata may name a revocation endpoint; OpenID discovery documents have none.
  const metadata: RevocationMetadata | undefined = custody.discovery?.authorizationServerMetadata;
  const endpoint = metadata?.revocation_endpoint;
  if (!endpoint || !custody.client || !custody.tokens) return false;
  const client = custody.client;
  const method = selectClientAuthMethod(
    client,
    metadata.revocation_endpoint_auth_methods_supported ??
      metadata.token_endpoint_auth_methods_supported ??
      [],
  );
  const send = exchangeFetch(dial);
  const tokens: [string, string][] = [
    ...(custody.tokens.refresh_token
      ? [[custody.tokens.refresh_token, 'refresh_token'] as [string, string]]
      : []),
    [custody.tokens.access_token, 'access_token'],
  ];
  for (const [token, hint] of tokens) {
    const body = new URLSearchParams({ token, token_type_hint: hint });
    const headers = new Headers({ 'content-type': 'application/x-www-form-urlencoded' });
    if (method === 'client_secret_basic' && client.client_secret) {
      const pair = `${encodeURIComponent(client.client_id)}:${encodeURIComponent(client.client_secret)}`;
      headers.set('authorization', `Basic ${Buffer.from(pair).toString('base64')}`);
    } else {
      body.set('client_id', client.client_id);
      if (method === 'client_secret_post' && client.client_secret)
        body.set('client_secret', client.client_secret);
    }
    // A redirect would send the tokens on to wherever it points: none is followed.
    const response = await send(endpoint, { method: 'POST', headers, body, redirect: 'manual' });
    await response.body?.cancel().catch(() => undefined);
    if (!response.ok) {
      throw new OAuthFlowError(`the revocation endpoint answered HTTP ${response.status}`);
    }
  }
  return true;
}
