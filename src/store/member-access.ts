import type pg from 'pg';
import type { SessionId, ToolCallId } from '../domain/gate/ids.js';
import { lowersRole } from '../domain/identity/roles-from-groups.js';
import { redact } from '../domain/ledger/redaction.js';
import { appendEvent } from './ledger.js';
import type { Queryable } from './pool.js';
import { denyForRevocation } from './run-revocations.js';

/**
 * A member's access ending, and the record of each change to it. Every state change here runs
 * in the caller's transaction, with its event, so a membership is never half ended.
 */

/** Who changed a member's access. */
export type AccessActor = 'operator' | 'identity_provider' | 'sign_in' | 'member';

export type AccessEventType =
  | 'member.suspended'
  | 'member.reactivated'
  | 'member.role_changed'
  | 'member.provisioned'
  | 'member.deprovisioned'
  | 'web_session.ended'
  | 'personal_token.revoked'
  | 'grant.revoked'
  | 'connection.needs_owner'
  | 'runs.ended'
  | 'scim_token.minted'
  | 'scim_token.revoked';

export interface AccessEvent {
  /** A bigserial: PostgreSQL's bigint reaches JavaScript as text. */
  seq: string;
  type: AccessEventType;
  member_id: string | null;
  subject_id: string | null;
  actor: AccessActor;
  at: Date;
}

export async function appendAccessEvent(
  db: Queryable,
  event: {
    workspaceId: string;
    memberId: string | null;
    type: AccessEventType;
    subjectId?: string | null;
    actor: AccessActor;
  },
): Promise<void> {
  await db.query(
    `insert into member_access_events (workspace_id, member_id, type, subject_id, actor)
     values ($1, $2, $3, $4, $5)`,
    [event.workspaceId, event.memberId, event.type, event.subjectId ?? null, event.actor],
  );
}

export async function listAccessEvents(db: Queryable, memberId: string): Promise<AccessEvent[]> {
  const { rows } = await db.query<AccessEvent>(
    `select seq, type, member_id, subject_id, actor, at from member_access_events
     where member_id = $1 order by seq`,
    [memberId],
  );
  return rows;
}

/** What ending a member's access ended, by id. */
interface EndedAccess {
  sessions: string[];
  tokens: string[];
  grants: string[];
  connections: string[];
  /** The paused calls of the member's runs, denied when their runs ended with the access. */
  denied: DeniedCall[];
}

/** A paused call denied in a transaction: its workflow is woken once that commits. */
export interface DeniedCall {
  sessionId: SessionId;
  toolCallId: ToolCallId;
}

const needsOwnerReason =
  "its owner's access to the workspace ended; they reconnect it once their access is given back";

/**
 * Ends everything a member holds, in the caller's transaction: their web sessions are deleted,
 * their personal tokens revoked, their standing approvals revoked (grant.revoked in each run's
 * ledger) and their personal connections left waiting for their owner, under a new generation so
 * a binding frozen before refuses (an authorization they started is used up). A later
 * reactivation revives none of it. When the access is ended on purpose (`endsRuns`: the
 * operator's suspension, the provider's deactivation or deletion), the runs they invoked end too:
 * their paused calls are denied first (approvals before any ledger, the order every decider takes
 * them in), then every run started before now reads as revoked, by one write.
 */
async function endMemberAccess(
  tx: pg.PoolClient,
  member: { id: string; workspace_id: string },
  actor: AccessActor,
  endsRuns = false,
): Promise<EndedAccess> {
  const record = (type: AccessEventType, subjectId: string) =>
    appendAccessEvent(tx, {
      workspaceId: member.workspace_id,
      memberId: member.id,
      type,
      subjectId,
      actor,
    });
  const denied = endsRuns ? await endRunsOf(tx, member, actor) : [];
  const sessions = await tx.query<{ id: string }>(
    'delete from web_sessions where member_id = $1 returning id',
    [member.id],
  );
  for (const { id } of sessions.rows) await record('web_session.ended', id);
  const tokens = await tx.query<{ id: string }>(
    `update personal_tokens set revoked_at = now()
     where member_id = $1 and revoked_at is null and expires_at > now() returning id`,
    [member.id],
  );
  for (const { id } of tokens.rows) await record('personal_token.revoked', id);
  const grants = await revokeGrantsOf(tx, member.id);
  for (const id of grants) await record('grant.revoked', id);
  const connections = await tx.query<{ id: string }>(
    `update connections set status = 'needs_reauthorization', status_reason = $2,
       auth_generation = auth_generation + 1
     where owner_user_id = $1 and kind = 'personal' and status = 'active' returning id`,
    [member.id, needsOwnerReason],
  );
  for (const { id } of connections.rows) await record('connection.needs_owner', id);
  // An authorization the person started and has not finished is used up: it connects nothing.
  await tx.query(
    'update oauth_authorizations set used_at = now() where member_id = $1 and used_at is null',
    [member.id],
  );
  return {
    sessions: sessions.rows.map((r) => r.id),
    tokens: tokens.rows.map((r) => r.id),
    grants,
    connections: connections.rows.map((r) => r.id),
    denied,
  };
}

/**
 * Ends the runs a member invoked: each paused call of theirs denied, as a revocation denies it,
 * then the member's runs ended as of now (`findRunRevocation` reads them revoked, their session
 * tokens are refused). Costs the paused calls, not the runs ever started.
 */
async function endRunsOf(
  tx: pg.PoolClient,
  member: { id: string; workspace_id: string },
  actor: AccessActor,
): Promise<DeniedCall[]> {
  const { rows } = await tx.query<{ session_id: SessionId; tool_call_id: ToolCallId }>(
    `select a.session_id, a.tool_call_id from approvals a
     join runs r on r.session_id = a.session_id
     where r.invoked_by = $1 and a.status = 'pending'
     order by a.session_id, a.tool_call_id
     for update of a`,
    [member.id],
  );
  const denied: DeniedCall[] = [];
  for (const row of rows) {
    const settled = await denyForRevocation(tx, row.session_id, row.tool_call_id);
    if (settled.outcome === 'decided')
      denied.push({ sessionId: row.session_id, toolCallId: row.tool_call_id });
  }
  // Recorded once per ending: again only when a run was started since the last one.
  const { rowCount } = await tx.query(
    `update members set runs_ended_at = now()
     where id = $1 and (runs_ended_at is null
       or exists (select 1 from runs where invoked_by = $1 and created_at > runs_ended_at))`,
    [member.id],
  );
  if (rowCount === 1 || denied.length > 0) {
    await appendAccessEvent(tx, {
      workspaceId: member.workspace_id,
      memberId: member.id,
      type: 'runs.ended',
      actor,
    });
  }
  return denied;
}

/**
 * Revokes every standing approval a member gave that is still in force, each with grant.revoked
 * in its run's ledger: a grant stands on its grantor's authority, which has ended or shrunk.
 */
async function revokeGrantsOf(tx: pg.PoolClient, memberId: string): Promise<string[]> {
  const { rows } = await tx.query<{ id: string; session_id: string }>(
    `update approval_grants set revoked_at = now(), revoked_because = 'grantor_access_ended'
     where granted_by = $1 and revoked_at is null and (expires_at is null or expires_at > now())
     returning id, session_id`,
    [memberId],
  );
  for (const grant of rows) {
    await appendEvent(
      tx,
      grant.session_id,
      redact('grant.revoked', {
        grant_id: grant.id,
        revoked_by: null,
        because: 'grantor_access_ended',
      }),
    );
  }
  return rows.map((r) => r.id);
}

/** A membership as its access changes see it. */
export interface Membership {
  id: string;
  workspace_id: string;
  name: string;
  role: 'member' | 'approver' | 'admin';
  status: 'active' | 'suspended';
  provisioned: boolean;
  suspended_by_operator: boolean;
}

const membershipColumns =
  'id, workspace_id, name, role, status, provisioned, suspended_by_operator';

/** A membership locked for a change of its access until the transaction ends. */
export async function lockMembership(
  tx: pg.PoolClient,
  workspaceId: string,
  memberId: string,
): Promise<Membership | undefined> {
  const { rows } = await tx.query<Membership>(
    `select ${membershipColumns} from members where workspace_id = $1 and id = $2 for update`,
    [workspaceId, memberId],
  );
  return rows[0];
}

/**
 * Sets a locked membership's role and status, with an event for each change: a membership
 * leaving `active` ends all its access at once; a lowered role revokes the grants it gave.
 */
export async function changeMembership(
  tx: pg.PoolClient,
  before: Membership,
  next: {
    role?: Membership['role'] | undefined;
    status: Membership['status'];
    suspended_by_operator: boolean;
  },
  actor: AccessActor,
  ending: { endsRuns: boolean; denied: DeniedCall[] } = { endsRuns: false, denied: [] },
): Promise<Membership> {
  const role = next.role ?? before.role;
  const { rows } = await tx.query<Membership>(
    `update members set role = $2, status = $3, suspended_by_operator = $4
     where id = $1 returning ${membershipColumns}`,
    [before.id, role, next.status, next.suspended_by_operator],
  );
  const after = rows[0];
  if (!after) throw new Error(`member ${before.id} vanished under its lock`);
  const record = (type: AccessEventType) =>
    appendAccessEvent(tx, { workspaceId: before.workspace_id, memberId: before.id, type, actor });
  if (before.role !== after.role) await record('member.role_changed');
  // An operator's suspension ends access even of a membership suspended already (by its groups).
  const newlySuspended =
    after.status === 'suspended' &&
    (before.status === 'active' || (after.suspended_by_operator && !before.suspended_by_operator));
  if (newlySuspended) {
    await record('member.suspended');
    const ended = await endMemberAccess(tx, after, actor, ending.endsRuns);
    ending.denied.push(...ended.denied);
  } else if (ending.endsRuns && after.status === 'suspended') {
    // Suspended already (by its groups), now ended on purpose: its runs end too.
    ending.denied.push(...(await endRunsOf(tx, after, actor)));
  } else if (before.status === 'suspended' && after.status === 'active') {
    await record('member.reactivated');
  } else if (before.status === 'active' && lowersRole(before.role, after.role)) {
    for (const id of await revokeGrantsOf(tx, before.id)) {
      await appendAccessEvent(tx, {
        workspaceId: before.workspace_id,
        memberId: before.id,
        type: 'grant.revoked',
        subjectId: id,
        actor,
      });
    }
  }
  return after;
}

/** The operator ends one of a member's web sessions; false when it is not theirs. */
export async function endWebSessionOf(
  tx: pg.PoolClient,
  member: { id: string; workspace_id: string },
  sessionId: string,
  actor: AccessActor,
): Promise<boolean> {
  const { rowCount } = await tx.query('delete from web_sessions where id = $1 and member_id = $2', [
    sessionId,
    member.id,
  ]);
  if (rowCount !== 1) return false;
  await appendAccessEvent(tx, {
    workspaceId: member.workspace_id,
    memberId: member.id,
    type: 'web_session.ended',
    subjectId: sessionId,
    actor,
  });
  return true;
}

/** Revokes one of a member's personal tokens; false when it is not theirs or already revoked. */
export async function revokePersonalTokenOf(
  tx: pg.PoolClient,
  member: { id: string; workspace_id: string },
  tokenId: string,
  actor: AccessActor,
): Promise<boolean> {
  const { rowCount } = await tx.query(
    `update personal_tokens set revoked_at = now()
     where id = $1 and member_id = $2 and revoked_at is null`,
    [tokenId, member.id],
  );
  if (rowCount !== 1) return false;
  await appendAccessEvent(tx, {
    workspaceId: member.workspace_id,
    memberId: member.id,
    type: 'personal_token.revoked',
    subjectId: tokenId,
    actor,
  });
  return true;
}
