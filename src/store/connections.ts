import type { McpPhotographedTool, UnusableMcpTool } from '../domain/tools/mcp-tools.js';
import type { Queryable } from './pool.js';

export type ConnectionStatus =
  'awaiting_authorization' | 'active' | 'needs_reauthorization' | 'revoked';

export interface ConnectionRow {
  id: string;
  workspace_id: string;
  name: string;
  kind: 'org' | 'personal';
  owner_user_id: string | null;
  url: string;
  sealed_credential: Buffer;
  auth_generation: number;
  status: ConnectionStatus;
  credential_type: 'bearer' | 'oauth';
  /** The scopes an OAuth connection asks for (space-separated); null: the server's choice. */
  scopes: string | null;
  /** Why a connection needs its owner again, in words the owner can act on. */
  status_reason: string | null;
  last_used_at: Date | null;
  tools: McpPhotographedTool[];
  unusable: UnusableMcpTool[];
  digest: string;
  photographed_at: Date;
}

export const connectionColumns = `id, workspace_id, name, kind, owner_user_id, url, sealed_credential, auth_generation, status,
  credential_type, scopes, status_reason, last_used_at, tools, unusable, digest, photographed_at`;

/** Returns undefined when the workspace already has a connection of that name not revoked. */
export async function insertConnection(
  db: Queryable,
  connection: Omit<
    ConnectionRow,
    'auth_generation' | 'photographed_at' | 'status_reason' | 'last_used_at'
  >,
): Promise<ConnectionRow | undefined> {
  const { rows } = await db.query<ConnectionRow>(
    `insert into connections (id, workspace_id, name, kind, owner_user_id, url, sealed_credential, tools,
       unusable, digest, status, credential_type, scopes)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
     on conflict (workspace_id, name) where status <> 'revoked' do nothing
     returning ${connectionColumns}`,
    [
      connection.id,
      connection.workspace_id,
      connection.name,
      connection.kind,
      connection.owner_user_id,
      connection.url,
      connection.sealed_credential,
      JSON.stringify(connection.tools),
      JSON.stringify(connection.unusable),
      connection.digest,
      connection.status,
      connection.credential_type,
      connection.scopes,
    ],
  );
  return rows[0];
}

export async function findConnection(
  db: Queryable,
  id: string,
): Promise<ConnectionRow | undefined> {
  const { rows } = await db.query<ConnectionRow>(
    `select ${connectionColumns} from connections where id = $1`,
    [id],
  );
  return rows[0];
}

export async function findConnections(
  db: Queryable,
  workspaceId: string,
  ids: readonly string[],
): Promise<ConnectionRow[]> {
  const { rows } = await db.query<ConnectionRow>(
    `select ${connectionColumns} from connections where workspace_id = $1 and id = any($2::uuid[])`,
    [workspaceId, ids],
  );
  return rows;
}

/** A connection's binding facts, read fresh for every gated call (never cached). */
export async function findBindingState(
  db: Queryable,
  id: string,
): Promise<
  Pick<ConnectionRow, 'status' | 'auth_generation' | 'tools' | 'owner_user_id' | 'kind'> | undefined
> {
  const { rows } = await db.query<ConnectionRow>(
    'select status, auth_generation, tools, owner_user_id, kind from connections where id = $1',
    [id],
  );
  return rows[0];
}

/** Replaces the photograph of an active connection; runs keep what they froze. */
export async function replacePhotograph(
  db: Queryable,
  id: string,
  photograph: Pick<ConnectionRow, 'tools' | 'unusable' | 'digest'>,
): Promise<ConnectionRow | undefined> {
  const { rows } = await db.query<ConnectionRow>(
    `update connections set tools = $2, unusable = $3, digest = $4, photographed_at = now()
     where id = $1 and status = 'active' returning ${connectionColumns}`,
    [id, JSON.stringify(photograph.tools), JSON.stringify(photograph.unusable), photograph.digest],
  );
  return rows[0];
}

/**
 * A new credential: the generation moves on, so bindings frozen under the old one refuse. A
 * connection waiting for its owner (whose access had ended) is active again with it.
 */
export async function reauthorizeConnection(
  db: Queryable,
  id: string,
  sealedCredential: Buffer,
): Promise<ConnectionRow | undefined> {
  const { rows } = await db.query<ConnectionRow>(
    `update connections set sealed_credential = $2, auth_generation = auth_generation + 1,
       status = 'active', status_reason = null
     where id = $1 and status in ('active', 'needs_reauthorization') returning ${connectionColumns}`,
    [id, sealedCredential],
  );
  return rows[0];
}

/**
 * Revokes a connection; `sealedCredential`, when given, replaces what it held (an OAuth
 * connection's custody without its tokens).
 */
export async function revokeConnection(
  db: Queryable,
  id: string,
  sealedCredential?: Buffer,
): Promise<ConnectionRow | undefined> {
  const { rows } = await db.query<ConnectionRow>(
    `update connections set status = 'revoked', status_reason = null,
       sealed_credential = coalesce($2, sealed_credential)
     where id = $1 returning ${connectionColumns}`,
    [id, sealedCredential ?? null],
  );
  return rows[0];
}

/** The connections a member answers for: their personal ones, and an admin's org ones. */
export async function listConnectionsFor(
  db: Queryable,
  member: { id: string; workspace_id: string; role: string },
): Promise<ConnectionRow[]> {
  const { rows } = await db.query<ConnectionRow>(
    `select ${connectionColumns} from connections
     where workspace_id = $1 and status <> 'revoked'
       and (owner_user_id = $2 or (kind = 'org' and $3))
     order by kind desc, name`,
    [member.workspace_id, member.id, member.role === 'admin'],
  );
  return rows;
}

/** A brokered call used the connection's credential. */
export async function touchConnection(db: Queryable, id: string): Promise<void> {
  await db.query('update connections set last_used_at = now() where id = $1', [id]);
}
