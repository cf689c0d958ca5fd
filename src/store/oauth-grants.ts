/**
 * A person's consent to one client (an OAuth grant), and the codes and tokens it issues, stored
 * as their SHA-256 only. Each state change is one transaction; the grant is the family that a
 * reused code or refresh token ends whole.
 */
import type { RunId } from '../domain/gate/ids.js';
import { withTransaction, type Pool, type Queryable } from './pool.js';
import { runStoppedSql } from './runs.js';

interface NewGrant {
  client_id: string;
  member_id: string;
  run_id: string;
  profile_id: string;
  resource: string;
  scope: string | null;
}

export interface Grant extends NewGrant {
  id: string;
}

/** What an issued pair's hashes and lifetimes are. */
export interface TokenPair {
  accessHash: Buffer;
  refreshHash: Buffer;
  accessS: number;
  refreshS: number;
}

/** The grant still stands: not revoked, its person still an active member, its run not ended. */
const grantLives = `g.revoked_at is null
  and exists (select 1 from members m where m.id = g.member_id and m.status = 'active')
  and not exists (select 1 from runs r where r.id = g.run_id and ${runStoppedSql('r')})`;

type RevocationReason = 'code_reused' | 'refresh_token_reused' | 'client_revoked';

async function revokeGrant(db: Queryable, grantId: string, because: RevocationReason) {
  await db.query(
    `update oauth_grants set revoked_at = now(), revoked_because = $2
     where id = $1 and revoked_at is null`,
    [grantId, because],
  );
}

async function insertPair(db: Queryable, grantId: string, pair: TokenPair) {
  const { rows } = await db.query<{ access_expires_at: Date }>(
    `insert into oauth_tokens (token_hash, grant_id, kind, expires_at)
     values ($1, $3, 'access', now() + make_interval(secs => $4)),
            ($2, $3, 'refresh', now() + make_interval(secs => $5))
     returning expires_at as access_expires_at`,
    [pair.accessHash, pair.refreshHash, grantId, pair.accessS, pair.refreshS],
  );
  return rows[0]?.access_expires_at as Date;
}

/** A grant and its one code, in one transaction. */
export function insertGrantWithCode(
  pool: Pool,
  grant: NewGrant,
  code: { hash: Buffer; redirect_uri: string; code_challenge: string; lifetimeS: number },
): Promise<Grant> {
  return withTransaction(pool, async (tx) => {
    const { rows } = await tx.query<{ id: string }>(
      `insert into oauth_grants (client_id, member_id, run_id, profile_id, resource, scope)
       values ($1, $2, $3, $4, $5, $6) returning id`,
      [
        grant.client_id,
        grant.member_id,
        grant.run_id,
        grant.profile_id,
        grant.resource,
        grant.scope,
      ],
    );
    const id = (rows[0] as { id: string }).id;
    await tx.query(
      `insert into oauth_codes (code_hash, grant_id, redirect_uri, code_challenge, expires_at)
       values ($1, $2, $3, $4, now() + make_interval(secs => $5))`,
      [code.hash, id, code.redirect_uri, code.code_challenge, code.lifetimeS],
    );
    return { id, ...grant };
  });
}

interface StoredCode {
  grant: Grant;
  redirect_uri: string;
  code_challenge: string;
}

type CodeRedemption =
  | { kind: 'issued'; grant: Grant; accessExpiresAt: Date }
  /** Unknown, expired, or its grant ended. */
  | { kind: 'invalid' }
  | { kind: 'wrong_client' }
  /** The caller's check refused it (PKCE, redirect URI, resource); the code stays as it was. */
  | { kind: 'refused'; reason: string }
  /** Redeemed before: the grant and every token it issued are ended now. */
  | { kind: 'reused' };

/**
 * Redeems a code once, for the client it was issued to. A second redemption ends its grant (RFC
 * 6749 §4.1.2: the tokens issued from it too). `check` refuses without using the code up.
 */
export function redeemCode(
  pool: Pool,
  codeHash: Buffer,
  clientId: string,
  check: (code: StoredCode) => string | undefined,
  pair: TokenPair,
): Promise<CodeRedemption> {
  return withTransaction(pool, async (tx) => {
    const { rows } = await tx.query<{
      grant_id: string;
      redirect_uri: string;
      code_challenge: string;
      redeemed: boolean;
      live: boolean;
      grant_lives: boolean;
      grant: Grant;
    }>(
      `select c.grant_id, c.redirect_uri, c.code_challenge, c.redeemed_at is not null as redeemed,
         c.expires_at > now() as live, (${grantLives}) as grant_lives,
         json_build_object('id', g.id, 'client_id', g.client_id, 'member_id', g.member_id,
           'run_id', g.run_id, 'profile_id', g.profile_id, 'resource', g.resource,
           'scope', g.scope) as grant
       from oauth_codes c join oauth_grants g on g.id = c.grant_id
       where c.code_hash = $1 for update of c`,
      [codeHash],
    );
    const code = rows[0];
    if (!code) return { kind: 'invalid' };
    if (code.grant.client_id !== clientId) return { kind: 'wrong_client' };
    if (code.redeemed) {
      await revokeGrant(tx, code.grant_id, 'code_reused');
      return { kind: 'reused' };
    }
    if (!code.live || !code.grant_lives) return { kind: 'invalid' };
    const reason = check(code);
    if (reason !== undefined) return { kind: 'refused', reason };
    await tx.query('update oauth_codes set redeemed_at = now() where code_hash = $1', [codeHash]);
    const accessExpiresAt = await insertPair(tx, code.grant_id, pair);
    return { kind: 'issued', grant: code.grant, accessExpiresAt };
  });
}

type RefreshRotation =
  | { kind: 'rotated'; grant: Grant; accessExpiresAt: Date }
  /** Used within the grace: the successor it was rotated to, again. */
  | { kind: 'same_successor'; grant: Grant; accessExpiresAt: Date }
  | { kind: 'invalid' }
  /** Used before, past the grace: the grant and every token it issued are ended now. */
  | { kind: 'reused' };

/**
 * Rotates a refresh token once. Its row is locked, so of concurrent presentations one rotates
 * and the others, waiting on the lock, find it used: within `graceS` of that use they are given
 * the same successor (its hashes are the caller's `successor`, derived from the presented token,
 * so it can be given again without being stored); later, the presentation is a reuse.
 */
export function rotateRefreshToken(
  pool: Pool,
  tokenHash: Buffer,
  clientId: string,
  successor: TokenPair,
  graceS: number,
): Promise<RefreshRotation> {
  return withTransaction(pool, async (tx) => {
    const { rows } = await tx.query<{
      grant_id: string;
      used: boolean;
      within_grace: boolean;
      successor_hash: Buffer | null;
      live: boolean;
      grant_lives: boolean;
      grant: Grant;
    }>(
      `select t.grant_id, t.used_at is not null as used, t.successor_hash,
         coalesce(t.used_at > now() - make_interval(secs => $2), false) as within_grace,
         t.expires_at > now() as live, (${grantLives}) as grant_lives,
         json_build_object('id', g.id, 'client_id', g.client_id, 'member_id', g.member_id,
           'run_id', g.run_id, 'profile_id', g.profile_id, 'resource', g.resource,
           'scope', g.scope) as grant
       from oauth_tokens t join oauth_grants g on g.id = t.grant_id
       where t.token_hash = $1 and t.kind = 'refresh' for update of t`,
      [tokenHash, graceS],
    );
    const token = rows[0];
    if (token?.grant.client_id !== clientId || !token.grant_lives) return { kind: 'invalid' };
    if (token.used) {
      if (!token.within_grace || !token.successor_hash?.equals(successor.refreshHash)) {
        await revokeGrant(tx, token.grant_id, 'refresh_token_reused');
        return { kind: 'reused' };
      }
      const { rows: access } = await tx.query<{ expires_at: Date }>(
        `select expires_at from oauth_tokens where token_hash = $1 and kind = 'access'`,
        [successor.accessHash],
      );
      const accessExpiresAt = access[0]?.expires_at;
      if (!accessExpiresAt) return { kind: 'invalid' };
      return { kind: 'same_successor', grant: token.grant, accessExpiresAt };
    }
    if (!token.live) return { kind: 'invalid' };
    await tx.query(
      `update oauth_tokens set used_at = now(), successor_hash = $2 where token_hash = $1`,
      [tokenHash, successor.refreshHash],
    );
    const accessExpiresAt = await insertPair(tx, token.grant_id, successor);
    return { kind: 'rotated', grant: token.grant, accessExpiresAt };
  });
}

/** The run an access token acts for at this resource, while it and its grant live. */
export async function findRunOfAccessToken(
  db: Queryable,
  tokenHash: Buffer,
  resource: string,
): Promise<RunId | undefined> {
  const { rows } = await db.query<{ run_id: RunId }>(
    `select g.run_id from oauth_tokens t join oauth_grants g on g.id = t.grant_id
     where t.token_hash = $1 and t.kind = 'access' and t.expires_at > now()
       and g.resource = $2 and ${grantLives}`,
    [tokenHash, resource],
  );
  return rows[0]?.run_id;
}

/** Ends the grant a token belongs to, if the client holds it (RFC 7009); false if none. */
export async function revokeGrantOfToken(
  db: Queryable,
  tokenHash: Buffer,
  clientId: string,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `update oauth_grants g set revoked_at = now(), revoked_because = 'client_revoked'
     from oauth_tokens t
     where t.token_hash = $1 and t.grant_id = g.id and g.client_id = $2 and g.revoked_at is null`,
    [tokenHash, clientId],
  );
  return rowCount === 1;
}

/** Which of these runs an OAuth authorization made from the profile. */
export async function runsFromProfile(
  db: Queryable,
  profileId: string,
  runIds: readonly RunId[],
): Promise<RunId[]> {
  const { rows } = await db.query<{ run_id: RunId }>(
    `select distinct run_id from oauth_grants where profile_id = $1 and run_id = any($2::uuid[])`,
    [profileId, runIds],
  );
  return rows.map((row) => row.run_id);
}
