import type { McpPhotographedTool, UnusableMcpTool } from '../domain/tools/mcp-tools.js';
import type { Queryable } from './pool.js';

export interface ConnectionRow {
  id: string;
  workspace_id: string;
  name: string;
  kind: 'org' | 'personal';
  owner_user_id: string | null;
  url: string;
  sealed_credential: Buffer;
  auth_generation: number;
  status: 'active' | 'revoked';
  tools: McpPhotographedTool[];
  unusable: UnusableMcpTool[];
  digest: string;
  photographed_at: Date;
}

const columns = `id, workspace_id, name, kind, owner_user_id, url, sealed_credential, auth_generation, status,
  tools, unusable, digest, photographed_at`;

/** Returns undefined when the workspace already has an active connection of that name. */
export async function insertConnection(
  db: Queryable,
  connection: Omit<ConnectionRow, 'auth_generation' | 'status' | 'photographed_at'>,
): Promise<ConnectionRow | undefined> {
  const { rows } = await db.query<ConnectionRow>(
    `insert into connections (id, workspace_id, name, kind, owner_user_id, url, sealed_credential, tools,
       unusable, digest)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
     on conflict (workspace_id, name) where status = 'active' do nothing
     returning ${columns}`,
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
    ],
  );
  return rows[0];
}

export async function findConnection(
  db: Queryable,
  id: string,
): Promise<ConnectionRow | undefined> {
  const { rows } = await db.query<ConnectionRow>(
    `select ${columns} from connections where id = $1`,
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
    `select ${columns} from connections where workspace_id = $1 and id = any($2::uuid[])`,
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
     where id = $1 and status = 'active' returning ${columns}`,
    [id, JSON.stringify(photograph.tools), JSON.stringify(photograph.unusable), photograph.digest],
  );
  return rows[0];
}

/** A new credential: the generation moves on, so bindings frozen under the old one refuse. */
export async function reauthorizeConnection(
  db: Queryable,
  id: string,
  sealedCredential: Buffer,
): Promise<ConnectionRow | undefined> {
  const { rows } = await db.query<ConnectionRow>(
    `update connections set sealed_credential = $2, auth_generation = auth_generation + 1
     where id = $1 and status = 'active' returning ${columns}`,
    [id, sealedCredential],
  );
  return rows[0];
}

export async function revokeConnection(
  db: Queryable,
  id: string,
): Promise<ConnectionRow | undefined> {
  const { rows } = await db.query<ConnectionRow>(
    `update connections set status = 'revoked' where id = $1 returning ${columns}`,
    [id],
  );
  return rows[0];
}
