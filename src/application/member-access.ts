/**
 * The operator's hold on members' access: suspending (sticky: no sign-in or provider lifts it)
 * and reactivating, listing and revoking a member's personal tokens and web sessions, and the
 * workspace's SCIM token. Each change and its event commit together.
 */
import { findMember } from '../store/members.js';
import type { Waker } from '../temporal/gate-workflow-client.js';
import {
  changeMembership,
  type DeniedCall,
  endWebSessionOf,
  listAccessEvents,
  lockMembership,
  revokePersonalTokenOf,
  type AccessEvent,
  type Membership,
} from '../store/member-access.js';
import { listPersonalTokens, type PersonalToken } from '../store/personal-tokens.js';
import { withTransaction, type Pool } from '../store/pool.js';
import { deleteScimToken, putScimToken } from '../store/scim-tokens.js';
import { listWebSessions, type ListedWebSession } from '../store/web-sessions.js';
import { workspaceExists } from '../store/workspaces.js';
import type { MemberStatus, Role } from '../store/members.js';
import { NotFoundError } from '../domain/errors.js';
import { settleProvisionedMember, wakeDenied } from './scim-provisioning.js';
import { hashToken, newToken } from './tokens.js';

const noMember = (workspaceId: string, userId: string) =>
  new NotFoundError(`member ${userId} of workspace ${workspaceId}`);

/**
 * A new role or status from the operator. Suspending ends the member's sessions, personal
 * tokens, grants, personal connections and the runs they invoked at once (their paused calls
 * denied, their workflows woken after the commit), and holds until the operator reactivates;
 * reactivating revives none of them, and a provisioned member is active again only while the
 * identity provider also says so.
 */
export async function changeMember(
  deps: { pool: Pool; gate: Waker },
  workspaceId: string,
  userId: string,
  change: { role?: Role | undefined; status?: MemberStatus | undefined },
): Promise<Membership> {
  const denied: DeniedCall[] = [];
  const membership = await withTransaction(deps.pool, async (tx) => {
    // A transaction tried again (PostgreSQL aborted it for another's sake) starts over.
    denied.length = 0;
    const before = await lockMembership(tx, workspaceId, userId);
    if (!before) throw noMember(workspaceId, userId);
    const suspended =
      change.status === undefined ? before.suspended_by_operator : change.status === 'suspended';
    const status = suspended ? 'suspended' : change.status === 'active' ? 'active' : before.status;
    const after = await changeMembership(
      tx,
      before,
      { role: change.role, status, suspended_by_operator: suspended },
      'operator',
      { endsRuns: change.status === 'suspended', denied },
    );
    if (!after.provisioned || change.status !== 'active') return after;
    await settleProvisionedMember(tx, workspaceId, userId, 'operator');
    return (await lockMembership(tx, workspaceId, userId)) ?? after;
  });
  wakeDenied(deps.gate, denied);
  return membership;
}

async function requireMember(pool: Pool, workspaceId: string, userId: string) {
  const member = await findMember(pool, workspaceId, userId);
  if (!member) throw noMember(workspaceId, userId);
  return member;
}

export async function memberTokens(
  pool: Pool,
  workspaceId: string,
  userId: string,
): Promise<PersonalToken[]> {
  await requireMember(pool, workspaceId, userId);
  return listPersonalTokens(pool, userId);
}

export async function memberSessions(
  pool: Pool,
  workspaceId: string,
  userId: string,
): Promise<ListedWebSession[]> {
  await requireMember(pool, workspaceId, userId);
  return listWebSessions(pool, userId);
}

/** What changed the member's access, oldest first: each suspension and what it ended. */
export async function memberAccessEvents(
  pool: Pool,
  workspaceId: string,
  userId: string,
): Promise<AccessEvent[]> {
  await requireMember(pool, workspaceId, userId);
  return listAccessEvents(pool, userId);
}

/** Revokes a member's personal token; a token not theirs, or revoked already, is not found. */
export async function revokeMemberToken(
  pool: Pool,
  workspaceId: string,
  userId: string,
  tokenId: string,
): Promise<void> {
  const member = await requireMember(pool, workspaceId, userId);
  const revoked = await withTransaction(pool, (tx) =>
    revokePersonalTokenOf(tx, member, tokenId, 'operator'),
  );
  if (!revoked) throw new NotFoundError(`unrevoked personal token ${tokenId} of member ${userId}`);
}

/** Ends a member's web session: its next request is signed out. */
export async function endMemberSession(
  pool: Pool,
  workspaceId: string,
  userId: string,
  sessionId: string,
): Promise<void> {
  const member = await requireMember(pool, workspaceId, userId);
  const ended = await withTransaction(pool, (tx) =>
    endWebSessionOf(tx, member, sessionId, 'operator'),
  );
  if (!ended) throw new NotFoundError(`web session ${sessionId} of member ${userId}`);
}

/** A new SCIM token for the workspace, shown once; the one before stops at once. */
export async function mintScimToken(pool: Pool, workspaceId: string): Promise<string> {
  if (!(await workspaceExists(pool, workspaceId))) {
    throw new NotFoundError(`workspace ${workspaceId}`);
  }
  const token = newToken('scim');
  await withTransaction(pool, (tx) => putScimToken(tx, workspaceId, hashToken(token)));
  return token;
}

export async function revokeScimToken(pool: Pool, workspaceId: string): Promise<void> {
  const revoked = await withTransaction(pool, (tx) => deleteScimToken(tx, workspaceId));
  if (!revoked) throw new NotFoundError(`a SCIM token of workspace ${workspaceId}`);
}
