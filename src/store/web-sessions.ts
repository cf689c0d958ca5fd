import type { Member } from './members.js';
import type { Queryable } from './pool.js';

/** Browser sign-ins of members: only a hash of each session id is stored. */

export async function insertWebSession(
  db: Queryable,
  sessionIdHash: Buffer,
  memberId: string,
  lifetimeS: number,
): Promise<void> {
  // Housekeeping on the way in: this member's expired sign-ins are of no further use.
  await db.query('delete from web_sessions where member_id = $1 and expires_at <= now()', [
    memberId,
  ]);
  await db.query(
    `insert into web_sessions (id_hash, member_id, expires_at)
     values ($1, $2, now() + make_interval(secs => $3))`,
    [sessionIdHash, memberId, lifetimeS],
  );
}

/**
 * The member behind a session id, checked on every request: an expired session, or a member
 * suspended since signing in, finds nothing.
 */
export async function findWebSessionMember(
  db: Queryable,
  sessionIdHash: Buffer,
): Promise<Member | undefined> {
  const { rows } = await db.query<Member>(
    `select m.id, m.workspace_id, m.name, m.role, m.status
     from web_sessions s join members m on m.id = s.member_id
     where s.id_hash = $1 and s.expires_at > now() and m.status = 'active'`,
    [sessionIdHash],
  );
  return rows[0];
}

export async function deleteWebSession(db: Queryable, sessionIdHash: Buffer): Promise<void> {
  await db.query('delete from web_sessions where id_hash = $1', [sessionIdHash]);
}
