import type pg from 'pg';
import { appendAccessEvent } from './member-access.js';
import type { Queryable } from './pool.js';

/** A workspace's SCIM token: minting one replaces the one before, which stops at once. */
export async function putScimToken(
  tx: pg.PoolClient,
  workspaceId: string,
  tokenHash: Buffer,
): Promise<void> {
  await tx.query(
    `insert into scim_tokens (workspace_id, token_hash) values ($1, $2)
     on conflict (workspace_id) do update set token_hash = excluded.token_hash, created_at = now()`,
    [workspaceId, tokenHash],
  );
  await appendAccessEvent(tx, {
    workspaceId,
    memberId: null,
    type: 'scim_token.minted',
    actor: 'operator',
  });
}

/** Revokes the workspace's SCIM token; false when it had none. */
export async function deleteScimToken(tx: pg.PoolClient, workspaceId: string): Promise<boolean> {
  const { rowCount } = await tx.query('delete from scim_tokens where workspace_id = $1', [
    workspaceId,
  ]);
  if (rowCount !== 1) return false;
  await appendAccessEvent(tx, {
    workspaceId,
    memberId: null,
    type: 'scim_token.revoked',
    actor: 'operator',
  });
  return true;
}

/** The workspace a SCIM token provisions; undefined for any other token. */
export async function workspaceOfScimToken(
  db: Queryable,
  tokenHash: Buffer,
): Promise<string | undefined> {
  const { rows } = await db.query<{ workspace_id: string }>(
    'select workspace_id from scim_tokens where token_hash = $1',
    [tokenHash],
  );
  return rows[0]?.workspace_id;
}
