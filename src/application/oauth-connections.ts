/**
 * Connections their owners authorize through OAuth: created waiting for that authorization,
 * authorized by the right person on the gate's own page, kept working by refreshing, reconnected
 * and disconnected. The operator creates the connection but never holds a token.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { heldReach, type Resolve } from '../broker/address-reach.js';
import {
  beginAuthorization,
  completeAuthorization,
  attemptIssuer,
  OAuthFlowError,
  refreshCustody,
  RefreshRefusedError,
  revokeCustody,
} from '../broker/oauth-client.js';
import type { OAuthCustody } from '../broker/oauth-custody.js';
import { photographHttp } from '../broker/http-mcp-server.js';
import type { Dial } from '../broker/reach-fetch.js';
import type { BearerCredential, CredentialSealer } from '../broker/sealing.js';
import {
  accessTokenDue,
  clientIssuerRefusal,
  mayAuthorize,
  mayDisconnect,
  responseIssuerRefusal,
} from '../domain/tools/connection-custody.js';
import { photographMcpTools } from '../domain/tools/mcp-tools.js';
import { photographDigest } from '../domain/tools/tools.js';
import {
  findConnection,
  insertConnection,
  revokeConnection as storeRevocation,
  type ConnectionRow,
} from '../store/connections.js';
import type { Member } from '../store/members.js';
import {
  consumeOAuthAuthorization,
  insertOAuthAuthorization,
} from '../store/oauth-authorizations.js';
import {
  activateOAuthConnection,
  markNeedsReauthorization,
  releaseRefreshLease,
  resealOAuthCustody,
  storeRefreshedTokens,
  takeRefreshLease,
} from '../store/oauth-connections.js';
import type { Pool } from '../store/pool.js';
import {
  identityOf,
  mustBeRegistrable,
  type ConnectionTarget,
} from './connection-prerequisites.js';
import { ConflictError, ForbiddenError, NotFoundError, GateError } from '../domain/errors.js';

export interface OAuthConnectionDeps {
  pool: Pool;
  sealer: CredentialSealer;
  /** Where people reach the gate's pages: the authorize page and the callback live there. */
  publicUrl: string;
  /** How the broker resolves the host names of connections' servers. */
  resolve: Resolve;
}

/** Where a connection's traffic may go: its URL, and what the operator said of its network. */
export function connectionDial(
  deps: Pick<OAuthConnectionDeps, 'resolve'>,
  url: string,
  held: { private_network?: true | undefined },
): Dial {
  return { reach: heldReach(url, held), resolve: deps.resolve };
}

interface OAuthCredentialRequest {
  type: 'oauth';
  scopes?: string[] | undefined;
  client_id?: string | undefined;
  client_secret?: string | undefined;
  private_network?: boolean | undefined;
}

/** Ten minutes from starting an authorization to coming back with its code. */
const attemptLifetimeS = 600;

export const authorizePath = (id: string) => `/connections/${id}/authorize`;
export const callbackPath = '/connections/oauth/callback';

const authorizeUrl = (deps: OAuthConnectionDeps, id: string) => deps.publicUrl + authorizePath(id);
const redirectUrl = (deps: OAuthConnectionDeps) => deps.publicUrl + callbackPath;
const stateHash = (state: string) => createHash('sha256').update(state, 'utf8').digest();

/** The page that completes the authorization, for the answer to the operator. */
interface AwaitingAuthorization {
  connection: ConnectionRow;
  authorize_url: string;
}

/**
 * Registers a connection that its owner (an admin, for an org connection) will authorize. A
 * client given here is sealed with the connection; without one the gate registers itself with
 * the authorization server when the owner connects.
 */
export async function registerOAuthConnection(
  deps: OAuthConnectionDeps,
  request: ConnectionTarget & { credential: OAuthCredentialRequest },
): Promise<AwaitingAuthorization> {
  await mustBeRegistrable(deps.pool, request);
  const { client_id: clientId, client_secret: clientSecret, scopes } = request.credential;
  const id = randomUUID();
  const custody: OAuthCustody = {
    type: 'oauth',
    ...(request.credential.private_network === true && { private_network: true }),
    ...(clientId !== undefined && {
      client: {
        client_id: clientId,
        ...(clientSecret !== undefined && { client_secret: clientSecret }),
      },
    }),
  };
  const empty = { tools: [], unusable: [] };
  const row = await insertConnection(deps.pool, {
    ...identityOf(id, request),
    sealed_credential: deps.sealer.seal(id, custody).toBytes(),
    ...empty,
    digest: photographDigest(empty),
    status: 'awaiting_authorization',
    credential_type: 'oauth',
    scopes: scopes?.length ? scopes.join(' ') : null,
  });
  if (!row) {
    throw new ConflictError(`the workspace already has a connection named ${request.name}`);
  }
  return { connection: row, authorize_url: authorizeUrl(deps, id) };
}

async function oauthConnection(pool: Pool, id: string): Promise<ConnectionRow> {
  const row = await findConnection(pool, id);
  if (row?.credential_type !== 'oauth' || row.status === 'revoked') {
    throw new NotFoundError(`OAuth connection ${id}`);
  }
  return row;
}

/**
 * A new authorize page for a connection: success there moves its generation on. The operator may
 * say again whether its server is on the private network; the custody keeps the answer.
 */
export async function requestReauthorization(
  deps: OAuthConnectionDeps,
  id: string,
  privateNetwork?: boolean,
): Promise<AwaitingAuthorization> {
  const row = await findConnection(deps.pool, id);
  if (!row || row.status === 'revoked') throw new NotFoundError(`connection ${id}`);
  if (row.credential_type !== 'oauth') {
    throw new ConflictError('a bearer connection is reauthorized with a new token');
  }
  if (privateNetwork !== undefined) {
    const { sealer } = deps;
    const resealed = await resealOAuthCustody(deps.pool, id, (sealed) => {
      const held: OAuthCustody = sealer.unsealOAuth(id, sealer.fromStored(sealed));
      delete held.private_network;
      if (privateNetwork) held.private_network = true;
      return sealer.seal(id, held).toBytes();
    });
    if (!resealed) throw new NotFoundError(`connection ${id}`);
  }
  return { connection: row, authorize_url: authorizeUrl(deps, id) };
}

/** The connection, if this member may authorize it; otherwise 404 outside the workspace, else 403. */
export async function connectionToAuthorize(
  pool: Pool,
  member: Member,
  id: string,
): Promise<ConnectionRow> {
  const row = await oauthConnection(pool, id);
  if (row.workspace_id !== member.workspace_id) throw new NotFoundError(`OAuth connection ${id}`);
  if (!mayAuthorize(row, member)) {
    throw new ForbiddenError(
      row.kind === 'personal'
        ? 'a personal connection is authorized only by its owner'
        : 'an org connection is authorized by an admin',
    );
  }
  return row;
}

/**
 * Starts the authorization on the member's behalf: discovery, registration when no client is
 * held, and PKCE. The state and verifier are kept (hashed, sealed) for this member only, once.
 */
export async function startAuthorization(
  deps: OAuthConnectionDeps,
  member: Member,
  id: string,
): Promise<URL> {
  const row = await connectionToAuthorize(deps.pool, member, id);
  const custody = deps.sealer.unsealOAuth(id, deps.sealer.fromStored(row.sealed_credential));
  const state = randomBytes(32).toString('base64url');
  const { authorizationUrl, attempt } = await beginAuthorization(row.url, {
    redirectUrl: redirectUrl(deps),
    state,
    scope: row.scopes ?? undefined,
    client: custody.client,
    dial: connectionDial(deps, row.url, custody),
  });
  // A client (and its secret) goes only to the issuer it belongs to; a first use binds it.
  const { issuer } = attemptIssuer(attempt.discovery);
  const refusal = clientIssuerRefusal(custody.client_issuer, issuer);
  if (refusal) throw new OAuthFlowError(refusal);
  if (custody.client && custody.client_issuer === undefined) await bindClient(deps, id, issuer);
  const hash = stateHash(state);
  await insertOAuthAuthorization(deps.pool, {
    stateHash: hash,
    connectionId: id,
    memberId: member.id,
    sealedAttempt: deps.sealer.seal(hash.toString('base64url'), attempt).toBytes(),
    lifetimeS: attemptLifetimeS,
  });
  return authorizationUrl;
}

/** The client the connection holds belongs from now on to `issuer`, unless it already belongs. */
async function bindClient(deps: OAuthConnectionDeps, id: string, issuer: string): Promise<void> {
  const { sealer } = deps;
  await resealOAuthCustody(deps.pool, id, (sealed) => {
    const held: OAuthCustody = sealer.unsealOAuth(id, sealer.fromStored(sealed));
    held.client_issuer ??= issuer;
    return sealer.seal(id, held).toBytes();
  });
}

/** The server refused (or the person declined): the attempt is used up, nothing else changes. */
export async function abandonAuthorization(
  deps: Pick<OAuthConnectionDeps, 'pool'>,
  member: Member,
  state: string,
): Promise<void> {
  await consumeOAuthAuthorization(deps.pool, stateHash(state), member.id);
}

/** A callback that cannot be completed: forged, replayed, expired, or someone else's. */
export class AuthorizationRefusedError extends ForbiddenError {
  override name = 'AuthorizationRefusedError';
}

/**
 * Completes an authorization the same member started: the code exchanged for tokens, the server
 * photographed with them, the tokens sealed, the connection active (a reconnect moves its
 * generation on). The state is used up first, so a replayed callback finds nothing.
 */
export async function finishAuthorization(
  deps: OAuthConnectionDeps,
  member: Member,
  callback: { state: string; code: string; iss?: string | undefined },
): Promise<ConnectionRow> {
  const hash = stateHash(callback.state);
  const started = await consumeOAuthAuthorization(deps.pool, hash, member.id);
  if (!started) {
    throw new AuthorizationRefusedError(
      'this authorization was not started by you, was already used, or has expired; start again from your connections',
    );
  }
  const row = await connectionToAuthorize(deps.pool, member, started.connection_id);
  const attempt = deps.sealer.unsealOAuthAttempt(
    hash.toString('base64url'),
    deps.sealer.fromStored(started.sealed_attempt),
  );
  // The mix-up defence: the code goes only to the issuer the state was sent to, and only when the
  // answer is that issuer's (RFC 9207); a code another server issued is never sent on.
  const sentTo = attemptIssuer(attempt.discovery);
  const mixedUp = responseIssuerRefusal(sentTo, callback.iss);
  if (mixedUp) {
    throw new AuthorizationRefusedError(
      `${mixedUp}; nothing was exchanged, start again from your connections`,
    );
  }
  const held = deps.sealer.unsealOAuth(row.id, deps.sealer.fromStored(row.sealed_credential));
  const completed = await completeAuthorization(row.url, attempt, {
    redirectUrl: redirectUrl(deps),
    code: callback.code,
    scope: row.scopes ?? undefined,
    dial: connectionDial(deps, row.url, held),
  });
  const custody: OAuthCustody = {
    ...completed,
    ...(held.private_network && { private_network: true }),
    client_issuer: held.client_issuer ?? sentTo.issuer,
  };
  const listed = await photographHttp(
    row.url,
    bearerOf(custody),
    connectionDial(deps, row.url, custody),
  );
  const shot = photographMcpTools(row.name, listed);
  const activated = await activateOAuthConnection(deps.pool, row.id, {
    sealed_credential: deps.sealer.seal(row.id, custody).toBytes(),
    ...shot,
    digest: photographDigest(shot),
  });
  if (!activated) throw new NotFoundError(`OAuth connection ${row.id}`);
  return activated;
}

function bearerOf(custody: OAuthCustody): BearerCredential {
  if (!custody.tokens) throw new OAuthFlowError('the connection holds no access token');
  return {
    type: 'bearer',
    token: custody.tokens.access_token,
    ...(custody.private_network && { private_network: true }),
  };
}

/** The connection needs its owner: the reason a call's denial and the owner's page give. */
export class ReauthorizationNeededError extends GateError {
  override name = 'ReauthorizationNeededError';
  readonly code = 'reauthorization_needed';
}

const reconnectReason = (row: Pick<ConnectionRow, 'name'>, why: string) =>
  `the connection "${row.name}" needs its owner to reconnect it (${why}); they can do so on the gate's connections page`;

/**
 * A refresh's lease outlives its one exchange (10 s at most, all its requests and redirects
 * together) with room to spare; a holder that died frees it when it runs out, and a holder whose
 * lease was taken over writes nothing.
 */
const refreshLeaseS = 30;
/**
 * How long a call waits for another call's refresh before it gives up; it looks again at growing
 * intervals (jittered, so many waiters do not look at once), up to a second.
 */
const refreshWaitMs = 15_000;
const pollAfterMs = (attempt: number) =>
  Math.min(1_000, 50 * 2 ** attempt) * (0.8 + Math.random() * 0.4);

/**
 * The access token to call with, refreshed first when it is due. `stale`: a token the server
 * just refused, refreshed whatever its expiry. One call at a time refreshes a connection, holding
 * its lease (never a transaction) through the exchange; the others wait on the lease, holding no
 * database connection, and use the refresh it made rather than spending the refresh token again.
 * A refused refresh marks the connection `needs_reauthorization` (ReauthorizationNeededError).
 */
export async function oauthAccessToken(
  deps: Pick<OAuthConnectionDeps, 'pool' | 'sealer' | 'resolve'>,
  row: ConnectionRow,
  stale?: string,
): Promise<BearerCredential> {
  const { sealer } = deps;
  const held = sealer.unsealOAuth(row.id, sealer.fromStored(row.sealed_credential));
  if (stale === undefined && !due(held)) return bearerOf(held);
  const seen = stale ?? held.tokens?.access_token;
  const holder = randomUUID();
  const giveUpAt = Date.now() + refreshWaitMs;
  for (let attempt = 0; ; attempt++) {
    const lease = await takeRefreshLease(deps.pool, row.id, holder, refreshLeaseS);
    if (lease.state === 'inactive') {
      throw new ReauthorizationNeededError(`the connection "${row.name}" is no longer active`);
    }
    const current = sealer.unsealOAuth(row.id, sealer.fromStored(lease.sealed_credential));
    if (current.tokens?.access_token !== seen && !due(current)) {
      if (lease.state === 'won') await releaseRefreshLease(deps.pool, row.id, holder);
      return bearerOf(current);
    }
    if (lease.state === 'won') return refreshUnderLease(deps, row, current, holder);
    if (Date.now() >= giveUpAt) {
      throw new OAuthFlowError('another refresh of this connection did not finish in time');
    }
    await new Promise((resolve) => setTimeout(resolve, pollAfterMs(attempt)));
  }
}

/** The exchange, with no transaction open; then its outcome written in one short transaction. */
async function refreshUnderLease(
  deps: Pick<OAuthConnectionDeps, 'pool' | 'sealer' | 'resolve'>,
  row: ConnectionRow,
  current: OAuthCustody,
  holder: string,
): Promise<BearerCredential> {
  const { sealer, pool } = deps;
  let fresh: OAuthCustody;
  try {
    fresh = await refreshCustody(connectionDial(deps, row.url, current), current);
  } catch (error) {
    if (!(error instanceof RefreshRefusedError)) {
      await releaseRefreshLease(pool, row.id, holder);
      throw error;
    }
    const reason = reconnectReason(row, error.message);
    if (!(await markNeedsReauthorization(pool, row.id, holder, reason))) throw leaseLost();
    throw new ReauthorizationNeededError(reason);
  }
  const spent = current.tokens?.refresh_token;
  const stored = await storeRefreshedTokens(pool, row.id, holder, (sealed) => {
    const now: OAuthCustody = sealer.unsealOAuth(row.id, sealer.fromStored(sealed));
    // Reconnected meanwhile: the owner's new tokens stand, the refreshed old ones are dropped.
    if (now.tokens?.refresh_token !== spent) return sealed;
    const merged: OAuthCustody = { ...fresh };
    delete merged.private_network;
    if (now.private_network) merged.private_network = true;
    return sealer.seal(row.id, merged).toBytes();
  });
  if (stored === 'lease_lost') throw leaseLost();
  if (stored === 'inactive') {
    throw new ReauthorizationNeededError(`the connection "${row.name}" is no longer active`);
  }
  return bearerOf(fresh);
}

/** A refresh that outlived its lease: another holder took over, so this one wrote nothing. */
const leaseLost = () =>
  new OAuthFlowError('the refresh outlived its lease and another took it over; nothing was stored');

function due(custody: OAuthCustody): boolean {
  return accessTokenDue(
    { expires_at: custody.expires_at, lifetime_s: custody.tokens?.expires_in },
    Date.now(),
  );
}

/**
 * Revokes a connection. An OAuth connection's tokens are revoked at the server first when it
 * offers revocation (RFC 7009), and the gate keeps no token after. Answers whether the server
 * revoked them (false when it offers no revocation or refused).
 */
export async function disconnect(
  deps: Pick<OAuthConnectionDeps, 'pool' | 'sealer' | 'resolve'>,
  id: string,
): Promise<{ connection: ConnectionRow; revoked_at_server: boolean }> {
  const row = await findConnection(deps.pool, id);
  if (!row) throw new NotFoundError(`connection ${id}`);
  if (row.credential_type !== 'oauth' || row.status === 'revoked') {
    const revoked = await storeRevocation(deps.pool, id);
    if (!revoked) throw new NotFoundError(`connection ${id}`);
    return { connection: revoked, revoked_at_server: false };
  }
  const custody = deps.sealer.unsealOAuth(id, deps.sealer.fromStored(row.sealed_credential));
  // The gate lets go of the tokens whatever the server answers: custody ends here.
  const atServer = await revokeCustody(connectionDial(deps, row.url, custody), custody).catch(
    () => false,
  );
  const kept: OAuthCustody = {
    type: 'oauth',
    ...(custody.private_network && { private_network: true }),
    ...(custody.client && { client: custody.client }),
    ...(custody.discovery && { discovery: custody.discovery }),
  };
  const revoked = await storeRevocation(deps.pool, id, deps.sealer.seal(id, kept).toBytes());
  if (!revoked) throw new NotFoundError(`connection ${id}`);
  return { connection: revoked, revoked_at_server: atServer };
}

/** A member disconnects from the connections page: the owner, or an admin revoking. */
export async function disconnectAs(
  deps: Pick<OAuthConnectionDeps, 'pool' | 'sealer' | 'resolve'>,
  member: Member,
  id: string,
) {
  const row = await findConnection(deps.pool, id);
  if (row?.workspace_id !== member.workspace_id) throw new NotFoundError(`connection ${id}`);
  if (!mayDisconnect(row, member)) {
    throw new ForbiddenError('only its owner or an admin may disconnect this connection');
  }
  return disconnect(deps, id);
}
