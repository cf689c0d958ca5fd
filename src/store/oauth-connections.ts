import { connectionColumns as columns, type ConnectionRow } from './connections.js';
import { withTransaction, type Pool, type Queryable } from './pool.js';

/**
 * An OAuth connection's custody changes: each one a single statement, so a connection never
 * holds half of one. The refresh path locks the row first (`lockOAuthConnection`) so that two
 * calls never both spend a single-use refresh token.
 */

/**
 * The owner authorized: tokens sealed, the photograph taken with them, the connection active. A
 * reconnect (the connection had been authorized before) moves the generation on, so bindings
 * frozen before refuse; the first authorization keeps it.
 */
export async function activateOAuthConnection(
  db: Queryable,
  id: string,
  authorized: Pick<ConnectionRow, 'sealed_credential' | 'tools' | 'unusable' | 'digest'>,
): Promise<ConnectionRow | undefined> {
  const { rows } = await db.query<ConnectionRow>(
    `update connections set sealed_credential = $2, tools = $3, unusable = $4, digest = $5,
       photographed_at = now(), status_reason = null,
       auth_generation = auth_generation + (status <> 'awaiting_authorization')::int,
       status = 'active'
     where id = $1 and credential_type = 'oauth' and status <> 'revoked'
     returning ${columns}`,
    [
      id,
      authorized.sealed_credential,
      JSON.stringify(authorized.tools),
      JSON.stringify(authorized.unusable),
      authorized.digest,
    ],
  );
  return rows[0];
}

/** Locks an active OAuth connection's row until the transaction ends; undefined if not active. */
export async function lockOAuthConnection(
  db: Queryable,
  id: string,
): Promise<Pick<ConnectionRow, 'sealed_credential' | 'status'> | undefined> {
  const { rows } = await db.query<Pick<ConnectionRow, 'sealed_credential' | 'status'>>(
    `select sealed_credential, status from connections
     where id = $1 and credential_type = 'oauth' and status = 'active' for update`,
    [id],
  );
  return rows[0];
}

/** Refreshed tokens: the same authorization, so the generation stays. */
export async function replaceOAuthTokens(
  db: Queryable,
  id: string,
  sealedCredential: Buffer,
): Promise<void> {
  await db.query(
    `update connections set sealed_credential = $2 where id = $1 and status = 'active'`,
    [id, sealedCredential],
  );
}

/**
 * The custody sealed anew by `reseal` (an operator's setting changed), under the lock a refresh
 * takes, so a refresh meanwhile neither loses the change nor is lost. False when revoked or gone.
 */
export async function resealOAuthCustody(
  pool: Pool,
  id: string,
  reseal: (sealed: Buffer) => Buffer,
): Promise<boolean> {
  return withTransaction(pool, async (tx) => {
    const { rows } = await tx.query<Pick<ConnectionRow, 'sealed_credential'>>(
      `select sealed_credential from connections
        where id = $1 and credential_type = 'oauth' and status <> 'revoked' for update`,
      [id],
    );
    const row = rows[0];
    if (!row) return false;
    await tx.query(`update connections set sealed_credential = $2 where id = $1`, [
      id,
      reseal(row.sealed_credential),
    ]);
    return true;
  });
}

/** The server refused the refresh: the connection waits for its owner, saying why. */
export async function markNeedsReauthorization(
  db: Queryable,
  id: string,
  reason: string,
): Promise<void> {
  await db.query(
    `update connections set status = 'needs_reauthorization', status_reason = $2
     where id = $1 and status = 'active'`,
    [id, reason],
  );
}
