import { randomBytes } from 'node:crypto';
import { nameCandidates } from '../domain/identity/member-names.js';
import { one, type Queryable } from './pool.js';

export type Role = 'member' | 'approver' | 'admin';
export type MemberStatus = 'active' | 'suspended';

export interface Member {
  id: string;
  workspace_id: string;
  name: string;
  role: Role;
  status: MemberStatus;
}

const memberColumns = 'id, workspace_id, name, role, status';

/** Names tried before a random mark tells a member apart. */
const namesTried = 100;

/**
 * The first of a wanted name's candidates (`ana`, `ana (2)`…) no member of the workspace has, in
 * any case, held by the workspace's name lock until the transaction ends: inside a transaction
 * only, so that two members never take one name.
 */
export async function freeMemberName(
  db: Queryable,
  workspaceId: string,
  wanted: string,
): Promise<string> {
  await db.query('select pg_advisory_xact_lock(hashtextextended($1, 0))', [
    `member-names:${workspaceId}`,
  ]);
  const candidates = nameCandidates(wanted, namesTried);
  const { rows } = await db.query<{ name: string }>(
    `select c.name from unnest($2::text[]) with ordinality as c (name, nth)
     where not exists (
       select 1 from members m where m.workspace_id = $1 and lower(m.name) = lower(c.name))
     order by c.nth limit 1`,
    [workspaceId, candidates],
  );
  return rows[0]?.name ?? `${candidates[0] ?? ''} (${randomBytes(4).toString('hex')})`;
}

/** A member with an operator-minted token, under a name of their own in the workspace. */
export async function createMember(
  db: Queryable,
  member: { workspaceId: string; name: string; role: Role; tokenHash: Buffer },
): Promise<Member> {
  const name = await freeMemberName(db, member.workspaceId, member.name);
  const { rows } = await db.query<Member>(
    `insert into members (workspace_id, name, role, token_hash) values ($1, $2, $3, $4)
     returning ${memberColumns}`,
    [member.workspaceId, name, member.role, member.tokenHash],
  );
  return one(rows);
}

export async function findMemberByTokenHash(
  db: Queryable,
  tokenHash: Buffer,
): Promise<Member | undefined> {
  const { rows } = await db.query<Member>(
    `select ${memberColumns} from members where token_hash = $1`,
    [tokenHash],
  );
  return rows[0];
}

export async function findMember(
  db: Queryable,
  workspaceId: string,
  userId: string,
): Promise<Member | undefined> {
  const { rows } = await db.query<Member>(
    `select ${memberColumns} from members where workspace_id = $1 and id = $2`,
    [workspaceId, userId],
  );
  return rows[0];
}

/** The member as of now, locked against a concurrent suspension until the transaction ends. */
export async function lockMember(db: Queryable, userId: string): Promise<Member | undefined> {
  const { rows } = await db.query<Member>(
    `select ${memberColumns} from members where id = $1 for share`,
    [userId],
  );
  return rows[0];
}
