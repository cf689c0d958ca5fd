import type { Member } from './members.js';
import { one, type Queryable } from './pool.js';

/** A personal API token as its owner sees it listed; the token itself is shown once. */
export interface PersonalToken {
  id: string;
  name: string;
  created_at: Date;
  expires_at: Date;
  revoked_at: Date | null;
}

const columns = 'id, name, created_at, expires_at, revoked_at';

export async function insertPersonalToken(
  db: Queryable,
  token: { memberId: string; name: string; tokenHash: Buffer; lifetimeS: number },
): Promise<PersonalToken> {
  const { rows } = await db.query<PersonalToken>(
    `insert into personal_tokens (member_id, name, token_hash, expires_at)
     values ($1, $2, $3, now() + make_interval(secs => $4)) returning ${columns}`,
    [token.memberId, token.name, token.tokenHash, token.lifetimeS],
  );
  return one(rows);
}

export async function listPersonalTokens(
  db: Queryable,
  memberId: string,
): Promise<PersonalToken[]> {
  const { rows } = await db.query<PersonalToken>(
    `select ${columns} from personal_tokens where member_id = $1 order by created_at desc, id`,
    [memberId],
  );
  return rows;
}

/** Revokes one of the member's own tokens; false when it is not theirs or already revoked. */
export async function revokePersonalToken(
  db: Queryable,
  memberId: string,
  tokenId: string,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `update personal_tokens set revoked_at = now()
     where id = $1 and member_id = $2 and revoked_at is null`,
    [tokenId, memberId],
  );
  return rowCount === 1;
}

/** The member behind a personal token that is neither revoked nor expired. */
export async function findMemberByPersonalTokenHash(
  db: Queryable,
  tokenHash: Buffer,
): Promise<Member | undefined> {
  const { rows } = await db.query<Member>(
    `select m.id, m.workspace_id, m.name, m.role, m.status from personal_tokens t
     join members m on m.id = t.member_id
     where t.token_hash = $1 and t.revoked_at is null and t.expires_at > now()`,
    [tokenHash],
  );
  return rows[0];
}
