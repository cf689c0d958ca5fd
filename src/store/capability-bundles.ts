import type { PhotographedTool } from '../domain/tools/tools.js';
import type { Queryable } from './pool.js';

export interface CapabilityBundle {
  id: string;
  workspace_id: string;
  name: string;
  version: string;
  tools: PhotographedTool[];
  digest: string;
  /** The stdio MCP server it was photographed from, or null for a declared bundle. */
  command: { cmd: string; args: string[] } | null;
  unusable: { mcp_name: string; reason: string }[];
}

const bundleColumns = 'id, workspace_id, name, version, tools, digest, command, unusable';

/** Returns undefined when the workspace already has a bundle of that name and version. */
export async function insertCapabilityBundle(
  db: Queryable,
  bundle: Omit<CapabilityBundle, 'id'>,
): Promise<CapabilityBundle | undefined> {
  const { rows } = await db.query<CapabilityBundle>(
    `insert into capability_bundles (workspace_id, name, version, tools, digest, command, unusable)
     values ($1, $2, $3, $4, $5, $6, $7)
     on conflict (workspace_id, name, version) do nothing
     returning ${bundleColumns}`,
    [
      bundle.workspace_id,
      bundle.name,
      bundle.version,
      JSON.stringify(bundle.tools),
      bundle.digest,
      bundle.command && JSON.stringify(bundle.command),
      JSON.stringify(bundle.unusable),
    ],
  );
  return rows[0];
}

export async function findCapabilityBundles(
  db: Queryable,
  workspaceId: string,
  ids: readonly string[],
): Promise<CapabilityBundle[]> {
  const { rows } = await db.query<CapabilityBundle>(
    `select ${bundleColumns} from capability_bundles where workspace_id = $1 and id = any($2::uuid[])`,
    [workspaceId, ids],
  );
  return rows;
}
