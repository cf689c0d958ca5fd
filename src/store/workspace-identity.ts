import type { GroupRoles } from '../domain/identity/roles-from-groups.js';
import type { Queryable } from './pool.js';

/** Sets how a workspace's roles follow the provider's groups; the next sign-ins apply it. */
export async function putWorkspaceIdentity(
  db: Queryable,
  workspaceId: string,
  mapping: GroupRoles,
): Promise<void> {
  await db.query(
    `insert into workspace_identity (workspace_id, groups_claim, roles) values ($1, $2, $3)
     on conflict (workspace_id) do update
       set groups_claim = excluded.groups_claim, roles = excluded.roles, updated_at = now()`,
    [workspaceId, mapping.groups_claim, JSON.stringify(mapping.roles)],
  );
}

/** Every workspace's mapping: a sign-in sets the person's membership in each. */
export async function listWorkspaceIdentities(
  db: Queryable,
): Promise<(GroupRoles & { workspace_id: string })[]> {
  const { rows } = await db.query<GroupRoles & { workspace_id: string }>(
    'select workspace_id, groups_claim, roles from workspace_identity order by workspace_id',
  );
  return rows;
}

/** One workspace's mapping; undefined when it maps no groups. */
export async function findWorkspaceIdentity(
  db: Queryable,
  workspaceId: string,
): Promise<GroupRoles | undefined> {
  const { rows } = await db.query<GroupRoles>(
    'select groups_claim, roles from workspace_identity where workspace_id = $1',
    [workspaceId],
  );
  return rows[0];
}
