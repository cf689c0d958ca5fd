import { randomBytes } from 'node:crypto';
import type { CredentialSealer } from '../../broker/sealing.js';
import { verifierMatches } from '../../domain/oauth/pkce.js';
import {
  findRunOfAccessToken,
  redeemCode,
  revokeGrantOfToken,
  rotateRefreshToken,
  type Grant,
  type TokenPair,
} from '../../store/oauth-grants.js';
import type { OAuthClient } from '../../store/oauth-clients.js';
import type { Pool } from '../../store/pool.js';
import { findRun, type FrozenRun } from '../../store/runs.js';
import { hashToken } from '../tokens.js';
import { OAuthError } from './oauth-error.js';
import { sameResource, type OAuthNames } from './resource.js';

/** Short: an access token is checked on every request, but a stolen one is worth ten minutes. */
const accessTokenLifetimeS = 600;
/** A refresh token not used for thirty days ends; each use gives a new one. */
const refreshTokenLifetimeS = 30 * 24 * 3600;
/**
 * How long a refresh token already used is answered with the same successor rather than taken
 * as stolen: a client's concurrent refreshes, or one whose answer was lost, are not an attack.
 */
const refreshGraceS = 30;

const accessPrefix = 'fgoa_';
const refreshPrefix = 'fgor_';

export interface OAuthDeps {
  pool: Pool;
  sealer: CredentialSealer;
  names: OAuthNames;
}

/** What the token endpoint answers (RFC 6749 §5.1). */
interface TokenAnswer {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope?: string;
}

interface IssuedTokens {
  access: string;
  refresh: string;
}

function randomPair(): IssuedTokens {
  return {
    access: accessPrefix + randomBytes(32).toString('base64url'),
    refresh: refreshPrefix + randomBytes(32).toString('base64url'),
  };
}

/**
 * The successor of a refresh token: derived from it under the deployment's key, so it can be
 * given again to a concurrent refresh without being stored, and computed by nobody else.
 */
function successorOf(sealer: CredentialSealer, refreshToken: string): IssuedTokens {
  const derive = (purpose: string) => sealer.mac(purpose, refreshToken).toString('base64url');
  return {
    access: accessPrefix + derive('mcp-oauth access successor'),
    refresh: refreshPrefix + derive('mcp-oauth refresh successor'),
  };
}

function hashesOf(tokens: IssuedTokens): TokenPair {
  return {
    accessHash: hashToken(tokens.access),
    refreshHash: hashToken(tokens.refresh),
    accessS: accessTokenLifetimeS,
    refreshS: refreshTokenLifetimeS,
  };
}

function answer(tokens: IssuedTokens, grant: Grant, accessExpiresAt: Date): TokenAnswer {
  return {
    access_token: tokens.access,
    token_type: 'Bearer',
    expires_in: Math.max(0, Math.floor((accessExpiresAt.getTime() - Date.now()) / 1000)),
    refresh_token: tokens.refresh,
    ...(grant.scope !== null && { scope: grant.scope }),
  };
}

const ended = (what: string) => new OAuthError('invalid_grant', what);

interface CodeExchange {
  code: string;
  code_verifier: string | undefined;
  redirect_uri: string | undefined;
  resource: string | undefined;
}

/** The authorization code grant (OAuth 2.1 §4.1.3), with PKCE and the resource checked. */
export async function exchangeCode(
  deps: OAuthDeps,
  client: OAuthClient,
  exchange: CodeExchange,
): Promise<TokenAnswer> {
  const verifier = exchange.code_verifier;
  if (verifier === undefined) throw new OAuthError('invalid_request', 'code_verifier is required');
  const tokens = randomPair();
  const redemption = await redeemCode(
    deps.pool,
    hashToken(exchange.code),
    client.client_id,
    (code) => {
      if (!verifierMatches(verifier, code.code_challenge)) {
        return 'code_verifier does not match the code_challenge';
      }
      if (exchange.redirect_uri !== undefined && exchange.redirect_uri !== code.redirect_uri) {
        return 'redirect_uri is not the one the authorization was sent to';
      }
      if (
        exchange.resource !== undefined &&
        !sameResource(exchange.resource, code.grant.resource)
      ) {
        return 'resource is not the one the authorization was for';
      }
      return undefined;
    },
    hashesOf(tokens),
  );
  switch (redemption.kind) {
    case 'issued':
      return answer(tokens, redemption.grant, redemption.accessExpiresAt);
    case 'reused':
      throw ended('the code was used before: every token issued from it is revoked');
    case 'refused':
      throw ended(redemption.reason);
    case 'wrong_client':
    case 'invalid':
      throw ended('the code is unknown, expired, or not this client’s');
  }
}

/**
 * The refresh token grant: the token is rotated once; concurrent presentations within the grace
 * get the same successor, and one presented later revokes the whole grant (reuse detection).
 */
export async function refreshTokens(
  deps: OAuthDeps,
  client: OAuthClient,
  refreshToken: string,
  resource: string | undefined,
): Promise<TokenAnswer> {
  if (resource !== undefined && !sameResource(resource, deps.names.resource)) {
    throw new OAuthError('invalid_target', `resource must be ${deps.names.resource}`);
  }
  const tokens = successorOf(deps.sealer, refreshToken);
  const rotation = await rotateRefreshToken(
    deps.pool,
    hashToken(refreshToken),
    client.client_id,
    hashesOf(tokens),
    refreshGraceS,
  );
  switch (rotation.kind) {
    case 'rotated':
    case 'same_successor':
      return answer(tokens, rotation.grant, rotation.accessExpiresAt);
    case 'reused':
      throw ended('the refresh token was used before: every token of this grant is revoked');
    case 'invalid':
      throw ended('the refresh token is unknown, expired, revoked, or not this client’s');
  }
}

/** Ends the grant of a token the client holds (RFC 7009); an unknown token is no error. */
export async function revokeToken(deps: OAuthDeps, client: OAuthClient, token: string) {
  await revokeGrantOfToken(deps.pool, hashToken(token), client.client_id);
}

/**
 * The run an access token presented at `resource` acts for, or null: unknown, expired, issued
 * for another resource, its grant revoked, its person no longer an active member, or its run
 * ended. What `/mcp`'s bearer check calls; a session token is not its business.
 */
export async function verifyMcpAccessToken(
  pool: Pool,
  token: string,
  resource: string,
): Promise<FrozenRun | null> {
  if (!token.startsWith(accessPrefix)) return null;
  const runId = await findRunOfAccessToken(pool, hashToken(token), resource);
  return (runId && (await findRun(pool, runId))) ?? null;
}
