import type { Autonomy } from './runs.js';
import type { TrustTier } from '../domain/gate/trust-tier.js';
import type { Queryable } from './pool.js';

/** What a profile attaches to the runs created from it. */
export interface ProfileTools {
  bundles: string[];
  connections: { id: string; tools?: string[] | undefined }[];
}

/** An admin's template for the runs an interactive MCP client's authorization creates. */
export interface RunProfile {
  id: string;
  workspace_id: string;
  name: string;
  description: string;
  policy_id: string;
  tools: ProfileTools;
  max_tokens: number;
  autonomy: Autonomy;
  trust_tier: TrustTier;
  model_provider_id: string | null;
  created_at: Date;
  updated_at: Date;
}

export type RunProfileFields = Omit<
  RunProfile,
  'id' | 'workspace_id' | 'created_at' | 'updated_at'
>;

const columns = `id, workspace_id, name, description, policy_id, tools, max_tokens, autonomy,
  trust_tier, model_provider_id, created_at, updated_at`;

function values(fields: RunProfileFields) {
  return [
    fields.name,
    fields.description,
    fields.policy_id,
    JSON.stringify(fields.tools),
    fields.max_tokens,
    fields.autonomy,
    fields.trust_tier,
    fields.model_provider_id,
  ];
}

/** Undefined when the workspace already has a live profile of that name (any case). */
export async function insertRunProfile(
  db: Queryable,
  workspaceId: string,
  fields: RunProfileFields,
): Promise<RunProfile | undefined> {
  const { rows } = await db.query<RunProfile>(
    `insert into run_profiles (workspace_id, name, description, policy_id, tools, max_tokens,
       autonomy, trust_tier, model_provider_id)
     values ($9, $1, $2, $3, $4, $5, $6, $7, $8)
     on conflict (workspace_id, lower(name)) where deleted_at is null do nothing
     returning ${columns}`,
    [...values(fields), workspaceId],
  );
  return rows[0];
}

/** The profile's new fields; undefined when it is not a live profile of the workspace. */
export async function updateRunProfile(
  db: Queryable,
  workspaceId: string,
  id: string,
  fields: RunProfileFields,
): Promise<RunProfile | undefined> {
  const { rows } = await db.query<RunProfile>(
    `update run_profiles set name = $1, description = $2, policy_id = $3, tools = $4,
       max_tokens = $5, autonomy = $6, trust_tier = $7, model_provider_id = $8, updated_at = now()
     where workspace_id = $9 and id = $10 and deleted_at is null
     returning ${columns}`,
    [...values(fields), workspaceId, id],
  );
  return rows[0];
}

/** Whether a live profile of the workspace was deleted. Runs created from it keep running. */
export async function deleteRunProfile(
  db: Queryable,
  workspaceId: string,
  id: string,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `update run_profiles set deleted_at = now()
     where workspace_id = $1 and id = $2 and deleted_at is null`,
    [workspaceId, id],
  );
  return rowCount === 1;
}

export async function findRunProfile(
  db: Queryable,
  workspaceId: string,
  id: string,
): Promise<RunProfile | undefined> {
  const { rows } = await db.query<RunProfile>(
    `select ${columns} from run_profiles
     where workspace_id = $1 and id = $2 and deleted_at is null`,
    [workspaceId, id],
  );
  return rows[0];
}

export async function listRunProfiles(db: Queryable, workspaceId: string): Promise<RunProfile[]> {
  const { rows } = await db.query<RunProfile>(
    `select ${columns} from run_profiles where workspace_id = $1 and deleted_at is null
     order by lower(name)`,
    [workspaceId],
  );
  return rows;
}

/** Whether the name is taken by another live profile of the workspace. */
export async function runProfileNameTaken(
  db: Queryable,
  workspaceId: string,
  name: string,
  exceptId: string | null,
): Promise<boolean> {
  const { rows } = await db.query(
    `select 1 from run_profiles where workspace_id = $1 and lower(name) = lower($2)
       and deleted_at is null and id is distinct from $3`,
    [workspaceId, name, exceptId],
  );
  return rows.length > 0;
}
