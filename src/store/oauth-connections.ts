import { connectionColumns as columns, type ConnectionRow } from './connections.js';
import { withTransaction, type Pool, type Queryable } from './pool.js';

/**
 * An OAuth connection's custody changes: each one a single statement or one short transaction,
 * so a connection never holds half of one. A refresh takes the connection's lease first
 * (`takeRefreshLease`), so that two calls never both spend a single-use refresh token, and holds
 * no transaction while it talks to the authorization server.
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

/** What asking for a connection's refresh lease found: the custody as it is now, and who holds it. */
type RefreshLease = { state: 'won' | 'held'; sealed_credential: Buffer } | { state: 'inactive' };

/**
 * Takes the refresh lease of an active OAuth connection for `holder`, for `leaseS` seconds, when
 * nobody holds it (or a holder's lease ran out); one statement, so exactly one caller wins.
 */
export async function takeRefreshLease(
  db: Queryable,
  id: string,
  holder: string,
  leaseS: number,
): Promise<RefreshLease> {
  const { rows } = await db.query<{ sealed_credential: Buffer; won: boolean }>(
    `with taken as (
       update connections set refresh_lease = $2,
         refresh_lease_until = now() + make_interval(secs => $3)
       where id = $1 and credential_type = 'oauth' and status = 'active'
         and (refresh_lease_until is null or refresh_lease_until < now())
       returning sealed_credential)
     select sealed_credential, true as won from taken
     union all
     select sealed_credential, false from connections
       where id = $1 and credential_type = 'oauth' and status = 'active'
         and not exists (select 1 from taken)`,
    [id, holder, leaseS],
  );
  const row = rows[0];
  if (!row) return { state: 'inactive' };
  return { state: row.won ? 'won' : 'held', sealed_credential: row.sealed_credential };
}

/** Lets go of a refresh lease this holder took (a refresh that failed, or was not needed). */
export async function releaseRefreshLease(
  db: Queryable,
  id: string,
  holder: string,
): Promise<void> {
  await db.query(
    `update connections set refresh_lease = null, refresh_lease_until = null
     where id = $1 and refresh_lease = $2`,
    [id, holder],
  );
}

/**
 * Refreshed tokens, merged by `reseal` into the custody as it is now (an operator's setting may
 * have changed meanwhile), and the lease let go: the same authorization, so the generation stays.
 * Written only while `holder` still holds the lease: 'inactive' when the connection is no longer
 * active, 'lease_lost' when another holder took the lease over (nothing is written).
 */
export async function storeRefreshedTokens(
  pool: Pool,
  id: string,
  holder: string,
  reseal: (sealed: Buffer) => Buffer,
): Promise<'stored' | 'inactive' | 'lease_lost'> {
  return withTransaction(pool, async (tx) => {
    const { rows } = await tx.query<
      Pick<ConnectionRow, 'sealed_credential'> & { refresh_lease: string | null }
    >(
      `select sealed_credential, refresh_lease from connections
        where id = $1 and credential_type = 'oauth' and status = 'active' for update`,
      [id],
    );
    const row = rows[0];
    if (!row) return 'inactive';
    if (row.refresh_lease !== holder) return 'lease_lost';
    await tx.query(
      `update connections set sealed_credential = $2,
         refresh_lease = null, refresh_lease_until = null
       where id = $1 and refresh_lease = $3`,
      [id, reseal(row.sealed_credential), holder],
    );
    return 'stored';
  });
}

/**
 * The custody sealed anew by `reseal` (an operator's setting changed), under the row's lock, which
 * a refresh's write takes too: a refresh meanwhile merges its tokens into the changed custody, so
 * neither is lost. False when revoked or gone.
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

/**
 * The server refused the refresh `holder` made: the connection waits for its owner, saying why;
 * no lease. Nothing changes unless `holder` still holds the lease; answers whether it did.
 */
export async function markNeedsReauthorization(
  db: Queryable,
  id: string,
  holder: string,
  reason: string,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `update connections set status = 'needs_reauthorization', status_reason = $3,
       refresh_lease = null, refresh_lease_until = null
     where id = $1 and status = 'active' and refresh_lease = $2`,
    [id, holder, reason],
  );
  return (rowCount ?? 0) > 0;
}
