import { randomBytes, randomUUID } from 'node:crypto';
import { asSessionId } from '../../domain/gate/ids.js';
import { codeChallengePattern, pkceMethod } from '../../domain/oauth/pkce.js';
import { registeredRedirect } from '../../domain/oauth/redirect-uris.js';
import type { Member } from '../../store/members.js';
import {
  deleteExpiredAuthorizations,
  findPendingAuthorization,
  insertPendingAuthorization,
  takePendingAuthorization,
  type PendingAuthorization,
} from '../../store/oauth-authorization-requests.js';
import { findOAuthClient, type OAuthClient } from '../../store/oauth-clients.js';
import { insertGrantWithCode } from '../../store/oauth-grants.js';
import type { Pool } from '../../store/pool.js';
import { findRunProfile, listRunProfiles, type RunProfile } from '../../store/run-profiles.js';
import { createRun } from '../create-run.js';
import { InvalidInputError, NotFoundError } from '../../domain/errors.js';
import { hashToken } from '../tokens.js';
import { sameResource, type OAuthNames } from './resource.js';

/** Minutes a person has to sign in and pick a profile. */
const pendingLifetimeS = 600;
/** A code is exchanged at once by the client that asked; a minute is plenty. */
const codeLifetimeS = 60;
const codePrefix = 'fgoc_';

interface AuthorizationQuery {
  response_type?: string | undefined;
  client_id?: string | undefined;
  redirect_uri?: string | undefined;
  code_challenge?: string | undefined;
  code_challenge_method?: string | undefined;
  state?: string | undefined;
  scope?: string | undefined;
  resource?: string | undefined;
}

/** The client's redirect with the answer's parameters, and the issuer (RFC 9207). */
function toClient(
  names: OAuthNames,
  redirectUri: string,
  state: string | null | undefined,
  fields: Record<string, string>,
): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(fields)) url.searchParams.set(name, value);
  if (state !== undefined && state !== null) url.searchParams.set('state', state);
  url.searchParams.set('iss', names.issuer);
  return url.href;
}

/**
 * Checks an authorization request (OAuth 2.1 §4.1.1): PKCE with S256 is required; the resource,
 * when named, must be `/mcp`. A request refused here is told to the person on our page, never
 * sent on: anyone may register a client with any redirect URI, so sending a browser there before
 * a person has seen who asks would make the gate a redirector for whoever registers (RFC 9700
 * §4.11.2). Only the person's own answer on the consent page goes back to the client.
 */
export async function beginAuthorization(
  pool: Pool,
  names: OAuthNames,
  query: AuthorizationQuery,
): Promise<{ consent: string }> {
  const client = query.client_id ? await findOAuthClient(pool, query.client_id) : undefined;
  if (!client) {
    throw new InvalidInputError('the client is unknown: it must register first', [
      { path: 'query.client_id', message: 'no client registered with this id' },
    ]);
  }
  const redirectUri = registeredRedirect(client.redirect_uris, query.redirect_uri);
  if (redirectUri === undefined) {
    throw new InvalidInputError('redirect_uri is not one this client registered', [
      { path: 'query.redirect_uri', message: 'not registered for this client' },
    ]);
  }
  const refuse = (field: keyof AuthorizationQuery, error: string, description: string) =>
    new InvalidInputError(`${error}: ${description}`, [
      { path: `query.${field}`, message: description },
    ]);
  if (query.response_type !== 'code') {
    throw refuse('response_type', 'unsupported_response_type', 'response_type must be code');
  }
  if (query.code_challenge === undefined) {
    throw refuse(
      'code_challenge',
      'invalid_request',
      'code_challenge is required (PKCE with S256)',
    );
  }
  if (query.code_challenge_method !== pkceMethod) {
    throw refuse('code_challenge_method', 'invalid_request', 'code_challenge_method must be S256');
  }
  if (!codeChallengePattern.test(query.code_challenge)) {
    throw refuse('code_challenge', 'invalid_request', 'code_challenge is not an S256 challenge');
  }
  if (query.resource !== undefined && !sameResource(query.resource, names.resource)) {
    throw refuse('resource', 'invalid_target', `resource must be ${names.resource}`);
  }
  await deleteExpiredAuthorizations(pool);
  const pending = await insertPendingAuthorization(
    pool,
    {
      client_id: client.client_id,
      redirect_uri: redirectUri,
      state: query.state ?? null,
      code_challenge: query.code_challenge,
      resource: names.resource,
      scope: query.scope ?? null,
    },
    pendingLifetimeS,
  );
  return { consent: pending.id };
}

/** What the consent page shows: who asks, and the profiles the person may pick from. */
export interface ConsentView {
  request: PendingAuthorization;
  client: OAuthClient;
  profiles: RunProfile[];
}

const noRequest = (id: string) =>
  new NotFoundError(
    `authorization request ${id} (it was answered already, or took too long: start again from the client)`,
  );

export async function consentView(pool: Pool, id: string, member: Member): Promise<ConsentView> {
  const request = await findPendingAuthorization(pool, id);
  const client = request && (await findOAuthClient(pool, request.client_id));
  if (!request || !client) throw noRequest(id);
  return { request, client, profiles: await listRunProfiles(pool, member.workspace_id) };
}

/**
 * The person allows: a run is created from the profile they picked (one of their own
 * workspace's), invoked by them, and the client is sent a code for it. The request is taken
 * before the run is created, so it is answered once whatever happens after.
 */
export async function allowAuthorization(
  pool: Pool,
  names: OAuthNames,
  id: string,
  member: Member,
  profileId: string,
): Promise<string> {
  const profile = await findRunProfile(pool, member.workspace_id, profileId);
  if (!profile) {
    throw new InvalidInputError('pick one of the profiles offered', [
      { path: 'body.profile', message: `no run profile ${profileId} in your workspace` },
    ]);
  }
  const request = await takePendingAuthorization(pool, id);
  if (!request) throw noRequest(id);
  const { run } = await createRun(pool, {
    workspace: member.workspace_id,
    session_id: asSessionId(`mcp-${randomUUID()}`),
    invoked_by: member.id,
    source: { kind: 'manual' },
    autonomy: profile.autonomy,
    policy_id: profile.policy_id,
    tools: profile.tools,
    budget: { max_tokens: profile.max_tokens },
    model_provider: profile.model_provider_id ?? undefined,
    read_only: profile.trust_tier === 'read_only',
  });
  const code = codePrefix + randomBytes(32).toString('base64url');
  await insertGrantWithCode(
    pool,
    {
      client_id: request.client_id,
      member_id: member.id,
      run_id: run.id,
      profile_id: profile.id,
      resource: request.resource,
      scope: request.scope,
    },
    {
      hash: hashToken(code),
      redirect_uri: request.redirect_uri,
      code_challenge: request.code_challenge,
      lifetimeS: codeLifetimeS,
    },
  );
  return toClient(names, request.redirect_uri, request.state, { code });
}

/** The person declines: the client is told `access_denied`, and nothing is created. */
export async function denyAuthorization(
  pool: Pool,
  names: OAuthNames,
  id: string,
): Promise<string> {
  const request = await takePendingAuthorization(pool, id);
  if (!request) throw noRequest(id);
  return toClient(names, request.redirect_uri, request.state, {
    error: 'access_denied',
    error_description: 'the person declined',
  });
}
