import type { Member } from '../store/members.js';
import {
  insertPersonalToken,
  revokePersonalToken,
  type PersonalToken,
} from '../store/personal-tokens.js';
import type { Pool } from '../store/pool.js';
import { hashToken, newToken } from './tokens.js';

/**
 * A member mints an API token of their own: it acts as their membership (suspension included)
 * until it expires or they revoke it. Returned once, stored only as a hash.
 */
export async function mintPersonalToken(
  pool: Pool,
  member: Member,
  request: { name: string; days: number },
): Promise<{ token: string; listed: PersonalToken }> {
  const token = newToken('personal');
  const listed = await insertPersonalToken(pool, {
    memberId: member.id,
    name: request.name,
    tokenHash: hashToken(token),
    lifetimeS: request.days * 86_400,
  });
  return { token, listed };
}

/** A member revokes one of their own active tokens; false when they hold no such token. */
export function revokeOwnPersonalToken(
  pool: Pool,
  member: Member,
  tokenId: string,
): Promise<boolean> {
  return revokePersonalToken(pool, member.id, tokenId);
}
