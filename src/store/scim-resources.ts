import { freeMemberName } from './members.js';
import type pg from 'pg';
import type { Attributes } from '../domain/identity/scim/scim-attributes.js';
import type { Queryable } from './pool.js';

/** A provisioned User or Group as stored: its attributes as the provider last wrote them. */
export interface ScimResourceRow {
  id: string;
  workspace_id: string;
  kind: 'User' | 'Group';
  attributes: Attributes;
  version: number;
  created_at: Date;
  updated_at: Date;
}

export type ScimKind = ScimResourceRow['kind'];

const columns = 'id, workspace_id, kind, attributes, version, created_at, updated_at';

/** Answers undefined when the name is taken (a User's userName, a Group's displayName). */
export async function insertScimResource(
  tx: pg.PoolClient,
  resource: { id: string; workspaceId: string; kind: ScimKind; attributes: Attributes },
): Promise<ScimResourceRow | undefined> {
  const { rows } = await tx.query<ScimResourceRow>(
    `insert into scim_resources (id, workspace_id, kind, member_id, attributes)
     values ($1, $2, $3, case when $3 = 'User' then $1::uuid end, $4)
     on conflict do nothing returning ${columns}`,
    [resource.id, resource.workspaceId, resource.kind, JSON.stringify(resource.attributes)],
  );
  return rows[0];
}

export async function findScimResource(
  db: Queryable,
  workspaceId: string,
  kind: ScimKind,
  id: string,
  lock = false,
): Promise<ScimResourceRow | undefined> {
  const { rows } = await db.query<ScimResourceRow>(
    `select ${columns} from scim_resources where workspace_id = $1 and kind = $2 and id = $3
     ${lock ? 'for update' : ''}`,
    [workspaceId, kind, id],
  );
  return rows[0];
}

/** Every resource of a kind in the workspace, oldest first (filters are applied on these). */
export async function listScimResources(
  db: Queryable,
  workspaceId: string,
  kind: ScimKind,
): Promise<ScimResourceRow[]> {
  const { rows } = await db.query<ScimResourceRow>(
    `select ${columns} from scim_resources where workspace_id = $1 and kind = $2
     order by created_at, id`,
    [workspaceId, kind],
  );
  return rows;
}

/** New attributes; undefined when the name is taken by another resource. */
export async function updateScimResource(
  tx: pg.PoolClient,
  id: string,
  attributes: Attributes,
): Promise<ScimResourceRow | undefined> {
  try {
    await tx.query('savepoint scim_update');
    const { rows } = await tx.query<ScimResourceRow>(
      `update scim_resources set attributes = $2, version = version + 1, updated_at = now()
       where id = $1 returning ${columns}`,
      [id, JSON.stringify(attributes)],
    );
    await tx.query('release savepoint scim_update');
    return rows[0];
  } catch (error) {
    if ((error as { code?: string }).code !== '23505') throw error;
    await tx.query('rollback to savepoint scim_update');
    return undefined;
  }
}

export async function deleteScimResource(tx: pg.PoolClient, id: string): Promise<void> {
  await tx.query('delete from scim_resources where id = $1', [id]);
}

/** The groups a provisioned member is in: their ids and names. */
export async function groupsOfMember(
  db: Queryable,
  workspaceId: string,
  memberId: string,
): Promise<{ id: string; display_name: string }[]> {
  const { rows } = await db.query<{ id: string; display_name: string }>(
    `select id, attributes ->> 'displayName' as display_name from scim_resources
     where workspace_id = $1 and kind = 'Group' and attributes -> 'members' @> $2::jsonb
     order by created_at, id`,
    [workspaceId, JSON.stringify([{ value: memberId }])],
  );
  return rows;
}

/** Every provisioned member of a workspace, for a new identity mapping to apply to. */
export async function provisionedMemberIds(db: Queryable, workspaceId: string): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `select member_id as id from scim_resources where workspace_id = $1 and kind = 'User'`,
    [workspaceId],
  );
  return rows.map((r) => r.id);
}

/** Which of these ids are Users of the workspace. */
export async function userIdsAmong(
  db: Queryable,
  workspaceId: string,
  ids: readonly string[],
): Promise<Set<string>> {
  const { rows } = await db.query<{ id: string }>(
    `select id from scim_resources where workspace_id = $1 and kind = 'User' and id = any($2::uuid[])`,
    [workspaceId, ids],
  );
  return new Set(rows.map((r) => r.id));
}

/**
 * A member the person behind a new User already has in the workspace, no User of its own, locked
 * and marked provisioned: matched by their external id (the User's `externalId`: their subject,
 * or the claim the deployment names) first, else by their email as kept (the `userName` or an
 * email of the User).
 */
export async function adoptMember(
  tx: pg.PoolClient,
  workspaceId: string,
  match: { externalId: string | null; emails: string[] },
): Promise<string | undefined> {
  const { rows } = await tx.query<{ id: string }>(
    `update members set provisioned = true where id = (
       select m.id from members m join people p on p.id = m.person_id
       where m.workspace_id = $1
         and not exists (select 1 from scim_resources r where r.member_id = m.id)
         and (p.external_id = $2 or lower(p.email) = any($3::text[]))
       order by (p.external_id = $2) desc nulls last, m.created_at
       limit 1 for update of m)
     returning id`,
    [workspaceId, match.externalId, match.emails.map((e) => e.toLowerCase())],
  );
  return rows[0]?.id;
}

/** A member made by the provider: suspended until a group gives it a role. */
export async function insertProvisionedMember(
  tx: pg.PoolClient,
  workspaceId: string,
  name: string,
): Promise<string> {
  // Named once, by a name no other member of the workspace has; the provider never renames it.
  const { rows } = await tx.query<{ id: string }>(
    `insert into members (workspace_id, name, role, status, provisioned)
     values ($1, $2, 'member', 'suspended', true) returning id`,
    [workspaceId, await freeMemberName(tx, workspaceId, name)],
  );
  const id = rows[0]?.id;
  if (!id) throw new Error('the member was not recorded');
  return id;
}

/** A deleted User leaves every Group of the workspace. */
export async function removeFromGroups(
  tx: pg.PoolClient,
  workspaceId: string,
  memberId: string,
): Promise<void> {
  await tx.query(
    `update scim_resources set attributes = jsonb_set(attributes, '{members}',
       coalesce((select jsonb_agg(m) from jsonb_array_elements(attributes -> 'members') m
                 where m ->> 'value' <> $2), '[]'::jsonb)),
       version = version + 1, updated_at = now()
     where workspace_id = $1 and kind = 'Group' and attributes -> 'members' @> $3::jsonb`,
    [workspaceId, memberId, JSON.stringify([{ value: memberId }])],
  );
}

/** The groups each provisioned member of a workspace is in, for a list of Users. */
export async function groupsByMember(
  db: Queryable,
  workspaceId: string,
): Promise<Map<string, { id: string; display_name: string }[]>> {
  const { rows } = await db.query<{ member_id: string; id: string; display_name: string }>(
    `select m ->> 'value' as member_id, g.id, g.attributes ->> 'displayName' as display_name
     from scim_resources g, jsonb_array_elements(coalesce(g.attributes -> 'members', '[]')) m
     where g.workspace_id = $1 and g.kind = 'Group'
     order by g.created_at, g.id`,
    [workspaceId],
  );
  const groups = new Map<string, { id: string; display_name: string }[]>();
  for (const { member_id, id, display_name } of rows) {
    groups.set(member_id, [...(groups.get(member_id) ?? []), { id, display_name }]);
  }
  return groups;
}
