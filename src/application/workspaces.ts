import { createMember, type Member, type Role } from '../store/members.js';
import { withTransaction, type Pool } from '../store/pool.js';
import { createWorkspace as insertWorkspace, workspaceExists } from '../store/workspaces.js';
import { putWorkspaceIdentity } from '../store/workspace-identity.js';
import type { GroupRoles } from '../domain/identity/roles-from-groups.js';
import { NotFoundError } from '../domain/errors.js';
import { settleWorkspace } from './scim-provisioning.js';
import { hashToken, newToken } from './tokens.js';

/** Creates a workspace, with no members yet; its id is returned. */
export function createWorkspace(pool: Pool, name: string): Promise<string> {
  return insertWorkspace(pool, name);
}

/** Adds a member; their user token is returned once and stored only as a hash. */
export async function addMember(
  pool: Pool,
  workspaceId: string,
  member: { name: string; role: Role },
): Promise<{ member: Member; userToken: string }> {
  if (!(await workspaceExists(pool, workspaceId))) {
    throw new NotFoundError(`workspace ${workspaceId}`);
  }
  const userToken = newToken('user');
  const created = await withTransaction(pool, (db) =>
    createMember(db, {
      workspaceId,
      name: member.name,
      role: member.role,
      tokenHash: hashToken(userToken),
    }),
  );
  return { member: created, userToken };
}

/**
 * How the workspace's roles follow the identity provider's groups. Members the provider
 * provisions (SCIM) follow it at once; everyone else's memberships at their next sign-in.
 */
export async function setWorkspaceIdentity(
  pool: Pool,
  workspaceId: string,
  mapping: GroupRoles,
): Promise<void> {
  if (!(await workspaceExists(pool, workspaceId))) {
    throw new NotFoundError(`workspace ${workspaceId}`);
  }
  await withTransaction(pool, async (tx) => {
    await putWorkspaceIdentity(tx, workspaceId, mapping);
    await settleWorkspace(tx, workspaceId);
  });
}
