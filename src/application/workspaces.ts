import {
  createMember,
  updateMember,
  type Member,
  type MemberStatus,
  type Role,
} from '../store/members.js';
import { withTransaction, type Pool } from '../store/pool.js';
import { workspaceExists } from '../store/workspaces.js';
import { putWorkspaceIdentity } from '../store/workspace-identity.js';
import type { GroupRoles } from '../domain/identity/roles-from-groups.js';
import { NotFoundError } from './errors.js';
import { hashToken, newToken } from './tokens.js';

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

/** A new role or status; a suspended member decides nothing from the next request on. */
export async function changeMember(
  pool: Pool,
  workspaceId: string,
  userId: string,
  change: { role?: Role | undefined; status?: MemberStatus | undefined },
): Promise<Member> {
  const member = await updateMember(pool, workspaceId, userId, change);
  if (!member) throw new NotFoundError(`member ${userId} of workspace ${workspaceId}`);
  return member;
}

/**
 * How the workspace's roles follow the identity provider's groups. Each person's memberships
 * follow it at their next sign-in; until then they keep what they have.
 */
export async function setWorkspaceIdentity(
  pool: Pool,
  workspaceId: string,
  mapping: GroupRoles,
): Promise<void> {
  if (!(await workspaceExists(pool, workspaceId))) {
    throw new NotFoundError(`workspace ${workspaceId}`);
  }
  await putWorkspaceIdentity(pool, workspaceId, mapping);
}
