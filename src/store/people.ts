import {
  membershipChange,
  roleFromGroups,
  groupsIn,
} from '../domain/identity/roles-from-groups.js';
import { freeMemberName, type Member } from './members.js';
import { changeMembership, type Membership } from './member-access.js';
import { one, withTransaction, type Pool } from './pool.js';
import type pg from 'pg';
import { listWorkspaceIdentities } from './workspace-identity.js';

/** Who the identity provider says signed in: (issuer, subject), and what to show. */
export interface SignedInPerson {
  issuer: string;
  subject: string;
  /**
   * What a provisioned User's `externalId` names this person by: the claim the deployment names
   * (`GATE_OIDC_EXTERNAL_ID_CLAIM`), the subject when unset.
   */
  externalId?: string | null;
  /**
   * Whether an email counts only when the token says `email_verified: true`: so once the
   * deployment names a claim for `externalId`. Else it counts unless the token says it is false.
   */
  verifiedEmailOnly?: boolean;
  name: string | undefined;
  email: string | undefined;
  /** Every claim of the ID token, for each workspace's groups claim. */
  claims: Record<string, unknown>;
}

/**
 * The person's email as it may be kept and matched: only a verified one where the deployment
 * links people by a claim of its own (`verifiedEmailOnly`); else any the provider does not call
 * unverified. (Entra ID sends no `email_verified`: its people are linked by their `oid`.)
 */
const verifiedEmail = (person: SignedInPerson): string | null => {
  const verified = person.claims.email_verified;
  const counts = person.verifiedEmailOnly ? verified === true : verified !== false;
  return counts ? (person.email ?? null) : null;
};

/** What a provisioned User's `externalId` is compared with: null matches none. */
const externalIdOf = (person: SignedInPerson): string | null =>
  person.externalId === undefined ? person.subject : person.externalId;

const memberColumns = 'id, workspace_id, name, role, status, provisioned, suspended_by_operator';

/**
 * The person's membership in a workspace, locked: the one made at an earlier sign-in, or else
 * one the identity provider provisioned for them and nobody has signed in as yet (its
 * `externalId` is their external id, or its `userName` or an email is their email, as
 * `verifiedEmail` counts it), which is theirs from now on.
 */
async function membershipOf(
  db: pg.PoolClient,
  workspaceId: string,
  personId: string,
  person: SignedInPerson,
): Promise<Membership | undefined> {
  const linked = await db.query<Membership>(
    `select ${memberColumns} from members where workspace_id = $1 and person_id = $2 for update`,
    [workspaceId, personId],
  );
  if (linked.rows[0]) return linked.rows[0];
  const email = verifiedEmail(person);
  const provisioned = await db.query<Membership>(
    `update members m set person_id = $2
     where m.id = (
       select r.member_id from scim_resources r join members u on u.id = r.member_id
       where r.workspace_id = $1 and r.kind = 'User' and u.person_id is null
         and (r.attributes ->> 'externalId' = $3
           or lower(r.attributes ->> 'userName') = lower($4)
           or exists (select 1 from jsonb_array_elements(coalesce(r.attributes -> 'emails', '[]'))
                      e where lower(e ->> 'value') = lower($4)))
       order by (r.attributes ->> 'externalId' = $3) desc nulls last, r.created_at
       limit 1 for update of u)
     returning ${memberColumns.replace(/(\w+)/g, 'm.$1')}`,
    [workspaceId, personId, externalIdOf(person), email],
  );
  return provisioned.rows[0];
}

/**
 * Records a sign-in in one transaction: the person, then their membership in every workspace
 * that maps groups to roles. A membership the provider provisions follows the provider alone
 * (SCIM); any other is set from the groups the person holds now (made, changed, or suspended for
 * a group no longer held, which ends its access). No sign-in lifts an operator's suspension.
 * Answers the person's active memberships.
 */
export async function recordSignIn(pool: Pool, person: SignedInPerson): Promise<Member[]> {
  const shownName = person.name ?? person.email ?? person.subject;
  return withTransaction(pool, async (db) => {
    const { rows } = await db.query<{ id: string }>(
      `insert into people (issuer, subject, name, email, external_id) values ($1, $2, $3, $4, $5)
       on conflict (issuer, subject) do update
         set name = excluded.name, email = excluded.email, external_id = excluded.external_id,
             signed_in_at = now()
       returning id`,
      // An unverified email is not kept: a User is adopted by the member whose email matches.
      [
        person.issuer,
        person.subject,
        person.name ?? null,
        verifiedEmail(person),
        externalIdOf(person),
      ],
    );
    const personId = one(rows).id;
    const active: Member[] = [];
    for (const mapping of await listWorkspaceIdentities(db)) {
      let member = await membershipOf(db, mapping.workspace_id, personId, person);
      if (!member?.provisioned) {
        const role = roleFromGroups(groupsIn(person.claims, mapping.groups_claim), mapping);
        const change = membershipChange(role, member);
        if (change.kind === 'create') {
          const name = await freeMemberName(db, mapping.workspace_id, shownName);
          member = one(
            (
              await db.query<Membership>(
                `insert into members (workspace_id, name, role, person_id) values ($1, $2, $3, $4)
                 returning ${memberColumns}`,
                [mapping.workspace_id, name, change.role, personId],
              )
            ).rows,
          );
        } else if (member && (change.kind === 'set' || change.kind === 'suspend')) {
          const held = change.kind === 'set' && !member.suspended_by_operator;
          member = await changeMembership(
            db,
            member,
            {
              role: change.kind === 'set' ? change.role : undefined,
              status: held ? 'active' : 'suspended',
              suspended_by_operator: member.suspended_by_operator,
            },
            'sign_in',
          );
        }
      }
      if (member?.status === 'active') {
        const { id, workspace_id, name, role, status } = member;
        active.push({ id, workspace_id, name, role, status });
      }
    }
    return active;
  });
}
