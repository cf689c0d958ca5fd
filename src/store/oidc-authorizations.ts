import type { Queryable } from './pool.js';

/** A sign-in under way at the identity provider: what its callback must match. */
export interface PendingAuthorization {
  state: string;
  nonce: string;
  code_verifier: string;
  next: string | null;
}

export async function insertPendingAuthorization(
  db: Queryable,
  idHash: Buffer,
  pending: PendingAuthorization,
  lifetimeS: number,
): Promise<void> {
  // Housekeeping on the way in: sign-ins abandoned at the provider are of no further use.
  await db.query('delete from oidc_authorizations where expires_at <= now()');
  await db.query(
    `insert into oidc_authorizations (id_hash, state, nonce, code_verifier, next, expires_at)
     values ($1, $2, $3, $4, $5, now() + make_interval(secs => $6))`,
    [idHash, pending.state, pending.nonce, pending.code_verifier, pending.next, lifetimeS],
  );
}

/** Takes the pending sign-in once: a second callback with the same browser finds nothing. */
export async function takePendingAuthorization(
  db: Queryable,
  idHash: Buffer,
): Promise<PendingAuthorization | undefined> {
  const { rows } = await db.query<PendingAuthorization & { live: boolean }>(
    `delete from oidc_authorizations where id_hash = $1
     returning state, nonce, code_verifier, next, expires_at > now() as live`,
    [idHash],
  );
  const row = rows[0];
  if (!row?.live) return undefined;
  const { state, nonce, code_verifier, next } = row;
  return { state, nonce, code_verifier, next };
}
