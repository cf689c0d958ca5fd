import type { Member } from './members.js';
import type { Queryable } from './pool.js';

/**
 * Browser sign-ins: of members, and of the operator (for the Temporal UI's codec only). Only a
 * hash of each session id is stored.
 */

/** Who a browser session signs in. */
export type WebSessionHolder = { kind: 'member'; member: Member } | { kind: 'operator' };

/** A member by id, or the operator by the binding of the session to the operator key. */
type NewWebSessionHolder = { memberId: string } | { operatorKeyBinding: Buffer };

export async function insertWebSession(
  db: Queryable,
  sessionIdHash: Buffer,
  holder: NewWebSessionHolder,
  lifetimeS: number,
): Promise<void> {
  const memberId = 'memberId' in holder ? holder.memberId : null;
  // Housekeeping on the way in: this holder's expired sign-ins are of no further use.
  if (memberId === null) {
    await db.query('delete from web_sessions where member_id is null and expires_at <= now()');
  } else {
    await db.query('delete from web_sessions where member_id = $1 and expires_at <= now()', [
      memberId,
    ]);
  }
  await db.query(
    `insert into web_sessions (id_hash, member_id, operator_key_binding, expires_at)
     values ($1, $2, $3, now() + make_interval(secs => $4))`,
    [
      sessionIdHash,
      memberId,
      'operatorKeyBinding' in holder ? holder.operatorKeyBinding : null,
      lifetimeS,
    ],
  );
}

/**
 * Who is behind a session id, checked on every request: an expired session, one unused for
 * longer than `idleS`, a member suspended since signing in, or an operator session opened under
 * another operator key finds nothing. A session found is marked used now when `renew` says the
 * person did something; a page's live stream checking on its own renews nothing.
 */
export async function findWebSessionHolder(
  db: Queryable,
  sessionIdHash: Buffer,
  operatorKeyBinding: Buffer,
  idleS: number,
  renew: boolean,
): Promise<WebSessionHolder | undefined> {
  const { rows } = await db.query<Member & { operator: boolean }>(
    `with used as (
       update web_sessions set last_seen_at = case when $4 then now() else last_seen_at end
       where id_hash = $1 and expires_at > now()
         and last_seen_at > now() - make_interval(secs => $3)
       returning member_id, operator_key_binding
     )
     select s.operator_key_binding is not null as operator,
       m.id, m.workspace_id, m.name, m.role, m.status
     from used s left join members m on m.id = s.member_id
     where m.status = 'active' or s.operator_key_binding = $2`,
    [sessionIdHash, operatorKeyBinding, idleS, renew],
  );
  const row = rows[0];
  if (!row) return undefined;
  if (row.operator) return { kind: 'operator' };
  const { id, workspace_id, name, role, status } = row;
  return { kind: 'member', member: { id, workspace_id, name, role, status } };
}

export async function deleteWebSession(db: Queryable, sessionIdHash: Buffer): Promise<void> {
  await db.query('delete from web_sessions where id_hash = $1', [sessionIdHash]);
}

/** A member's web session as the operator sees it listed: never its id, only a handle. */
export interface ListedWebSession {
  id: string;
  created_at: Date;
  expires_at: Date;
  last_seen_at: Date;
}

/** The member's sessions not yet past their absolute lifetime, newest first. */
export async function listWebSessions(
  db: Queryable,
  memberId: string,
): Promise<ListedWebSession[]> {
  const { rows } = await db.query<ListedWebSession>(
    `select id, created_at, expires_at, last_seen_at from web_sessions
     where member_id = $1 and expires_at > now() order by created_at desc, id`,
    [memberId],
  );
  return rows;
}
