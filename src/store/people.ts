import {
  membershipChange,
  roleFromGroups,
  groupsIn,
} from '../domain/identity/roles-from-groups.js';
import { freeMemberName, type Member } from './members.js';
import { one, withTransaction, type Pool } from './pool.js';
import { listWorkspaceIdentities } from './workspace-identity.js';

/** Who the identity provider says signed in: (issuer, subject), and what to show. */
export interface SignedInPerson {
  issuer: string;
  subject: string;
  name: string | undefined;
  email: string | undefined;
  /** Every claim of the ID token, for each workspace's groups claim. */
  claims: Record<string, unknown>;
}

const memberColumns = 'id, workspace_id, name, role, status';

/**
 * Records a sign-in in one transaction: the person, then their membership in every workspace
 * that maps groups to roles, set from the groups they hold now (made, changed, or suspended for
 * a group no longer held). A membership is named once, when it is made, by a name no other
 * member of the workspace has; later sign-ins never rename it. Answers the active memberships.
 */
export async function recordSignIn(pool: Pool, person: SignedInPerson): Promise<Member[]> {
  const shownName = person.name ?? person.email ?? person.subject;
  return withTransaction(pool, async (db) => {
    const { rows } = await db.query<{ id: string }>(
      `insert into people (issuer, subject, name, email) values ($1, $2, $3, $4)
       on conflict (issuer, subject) do update
         set name = excluded.name, email = excluded.email, signed_in_at = now()
       returning id`,
      [person.issuer, person.subject, person.name ?? null, person.email ?? null],
    );
    const personId = one(rows).id;
    const active: Member[] = [];
    for (const mapping of await listWorkspaceIdentities(db)) {
      const existing = (
        await db.query<Member>(
          `select ${memberColumns} from members
           where workspace_id = $1 and person_id = $2 for update`,
          [mapping.workspace_id, personId],
        )
      ).rows[0];
      const role = roleFromGroups(groupsIn(person.claims, mapping.groups_claim), mapping);
      const change = membershipChange(role, existing);
      let member = existing;
      if (change.kind === 'create') {
        const name = await freeMemberName(db, mapping.workspace_id, shownName);
        member = one(
          (
            await db.query<Member>(
              `insert into members (workspace_id, name, role, person_id) values ($1, $2, $3, $4)
               returning ${memberColumns}`,
              [mapping.workspace_id, name, change.role, personId],
            )
          ).rows,
        );
      } else if (change.kind === 'set' || change.kind === 'suspend') {
        member = one(
          (
            await db.query<Member>(
              `update members set role = coalesce($2, role),
                 status = case when $2::text is null then 'suspended' else 'active' end
               where id = $1 returning ${memberColumns}`,
              [existing?.id, change.kind === 'set' ? change.role : null],
            )
          ).rows,
        );
      }
      if (member?.status === 'active') active.push(member);
    }
    return active;
  });
}
