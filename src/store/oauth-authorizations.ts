import type { Queryable } from './pool.js';

/** Authorizations people started: the state's hash, whose it is, and the sealed verifier. */

export async function insertOAuthAuthorization(
  db: Queryable,
  attempt: {
    stateHash: Buffer;
    connectionId: string;
    memberId: string;
    sealedAttempt: Buffer;
    lifetimeS: number;
  },
): Promise<void> {
  // Housekeeping on the way in: expired attempts of this connection are of no further use.
  await db.query(
    'delete from oauth_authorizations where connection_id = $1 and expires_at <= now()',
    [attempt.connectionId],
  );
  await db.query(
    `insert into oauth_authorizations (state_hash, connection_id, member_id, sealed_attempt, expires_at)
     values ($1, $2, $3, $4, now() + make_interval(secs => $5))`,
    [
      attempt.stateHash,
      attempt.connectionId,
      attempt.memberId,
      attempt.sealedAttempt,
      attempt.lifetimeS,
    ],
  );
}

/**
 * Uses up an authorization: only the person who started it, only once, only before it expires.
 * Undefined otherwise, and an attempt presented by someone else stays unused.
 */
export async function consumeOAuthAuthorization(
  db: Queryable,
  stateHash: Buffer,
  memberId: string,
): Promise<{ connection_id: string; sealed_attempt: Buffer } | undefined> {
  const { rows } = await db.query<{ connection_id: string; sealed_attempt: Buffer }>(
    `update oauth_authorizations set used_at = now()
     where state_hash = $1 and member_id = $2 and used_at is null and expires_at > now()
     returning connection_id, sealed_attempt`,
    [stateHash, memberId],
  );
  return rows[0];
}
