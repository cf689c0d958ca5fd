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

export async function createMember(
  db: Queryable,
  member: { workspaceId: string; name: string; role: Role; tokenHash: Buffer },
): Promise<Member> {
  const { rows } = await db.query<Member>(
    `insert into members (workspace_id, name, role, token_hash) values ($1, $2, $3, $4)
     returning ${memberColumns}`,
    [member.workspaceId, member.name, member.role, member.tokenHash],
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
