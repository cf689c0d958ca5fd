import type { Queryable } from './pool.js';

/** An authorization request waiting for its person to sign in and pick a profile. */
export interface PendingAuthorization {
  id: string;
  client_id: string;
  redirect_uri: string;
  state: string | null;
  code_challenge: string;
  resource: string;
  scope: string | null;
  expires_at: Date;
}

const columns = 'id, client_id, redirect_uri, state, code_challenge, resource, scope, expires_at';

export async function insertPendingAuthorization(
  db: Queryable,
  request: Omit<PendingAuthorization, 'id' | 'expires_at'>,
  lifetimeS: number,
): Promise<PendingAuthorization> {
  const { rows } = await db.query<PendingAuthorization>(
    `insert into oauth_authorization_requests
       (client_id, redirect_uri, state, code_challenge, resource, scope, expires_at)
     values ($1, $2, $3, $4, $5, $6, now() + make_interval(secs => $7))
     returning ${columns}`,
    [
      request.client_id,
      request.redirect_uri,
      request.state,
      request.code_challenge,
      request.resource,
      request.scope,
      lifetimeS,
    ],
  );
  return rows[0] as PendingAuthorization;
}

/** A live request, for the consent page to show. */
export async function findPendingAuthorization(
  db: Queryable,
  id: string,
): Promise<PendingAuthorization | undefined> {
  const { rows } = await db.query<PendingAuthorization>(
    `select ${columns} from oauth_authorization_requests where id = $1 and expires_at > now()`,
    [id],
  );
  return rows[0];
}

/** Takes a live request once: a second consent (a double post, a replay) finds nothing. */
export async function takePendingAuthorization(
  db: Queryable,
  id: string,
): Promise<PendingAuthorization | undefined> {
  const { rows } = await db.query<PendingAuthorization & { live: boolean }>(
    `delete from oauth_authorization_requests where id = $1
     returning ${columns}, expires_at > now() as live`,
    [id],
  );
  const row = rows[0];
  if (!row?.live) return undefined;
  return {
    id: row.id,
    client_id: row.client_id,
    redirect_uri: row.redirect_uri,
    state: row.state,
    code_challenge: row.code_challenge,
    resource: row.resource,
    scope: row.scope,
    expires_at: row.expires_at,
  };
}

/** Requests nobody finished: removed as new ones come, so the table stays small. */
export async function deleteExpiredAuthorizations(db: Queryable): Promise<void> {
  await db.query(
    `delete from oauth_authorization_requests
     where id in (select id from oauth_authorization_requests where expires_at < now() limit 100)`,
  );
}
