import { preferredMembership } from '../domain/identity/roles-from-groups.js';
import type { Member } from '../store/members.js';
import { recordSignIn, type SignedInPerson } from '../store/people.js';
import type { Pool } from '../store/pool.js';
import { ForbiddenError } from '../domain/errors.js';

/**
 * A person the identity provider signed in: their memberships are set from their groups now,
 * and the web session opens on the active one with the highest role. A person left with no
 * active membership is recorded and refused.
 */
export async function signInPerson(pool: Pool, person: SignedInPerson): Promise<Member> {
  const member = preferredMembership(await recordSignIn(pool, person));
  if (!member) {
    throw new ForbiddenError(
      'You signed in, but none of your groups gives you a role in a workspace here (or your membership is suspended). Ask an administrator to add you to a group.',
    );
  }
  return member;
}
