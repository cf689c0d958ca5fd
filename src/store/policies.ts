import type { PolicyBody } from '../domain/policy/policy.js';
import { one, type Queryable } from './pool.js';

export interface PolicyVersion {
  policy_id: string;
  workspace_id: string;
  version: number;
  body: PolicyBody;
  created_at: Date;
}

export async function insertPolicy(
  db: Queryable,
  body: PolicyBody,
): Promise<{ id: string; version: number }> {
  const { rows } = await db.query<{ id: string }>(
    `with policy as (
       insert into policies (workspace_id, name, latest_version) values ($1, $2, 1) returning id
     )
     insert into policy_versions (policy_id, version, body)
     select id, 1, $3 from policy returning policy_id as id`,
    [body.workspace, body.name, JSON.stringify(body)],
  );
  return { id: one(rows).id, version: 1 };
}

/**
 * Adds the next version. The row lock on the policy serialises concurrent edits, so versions
 * run 1..n without gaps or duplicates. Returns undefined for an unknown policy or a body that
 * names another workspace.
 */
export async function insertPolicyVersion(
  db: Queryable,
  policyId: string,
  body: PolicyBody,
): Promise<{ id: string; version: number } | undefined> {
  const { rows } = await db.query<{ version: number }>(
    `with bumped as (
       update policies set latest_version = latest_version + 1, name = $3, updated_at = now()
       where id = $1 and workspace_id = $2 returning id, latest_version
     )
     insert into policy_versions (policy_id, version, body)
     select id, latest_version, $4 from bumped returning version`,
    [policyId, body.workspace, body.name, JSON.stringify(body)],
  );
  const row = rows[0];
  return row && { id: policyId, version: row.version };
}

export async function findPolicyVersion(
  db: Queryable,
  policyId: string,
  version?: number,
): Promise<PolicyVersion | undefined> {
  const { rows } = await db.query<PolicyVersion>(
    `select v.policy_id, p.workspace_id, v.version, v.body, v.created_at
     from policy_versions v join policies p on p.id = v.policy_id
     where v.policy_id = $1 and v.version = coalesce($2, p.latest_version)`,
    [policyId, version ?? null],
  );
  return rows[0];
}

/**
 * Names the version a policy's calls are also evaluated against (null: none). Undefined for an
 * unknown policy or a version it does not have.
 */
export async function setShadowVersion(
  db: Queryable,
  policyId: string,
  version: number | null,
): Promise<{ id: string; shadow_version: number | null } | undefined> {
  const { rows } = await db.query<{ id: string; shadow_version: number | null }>(
    `update policies set shadow_version = $2, updated_at = now()
     where id = $1 and ($2::integer is null or $2 <= latest_version)
     returning id, shadow_version`,
    [policyId, version],
  );
  return rows[0];
}

/** The policy's shadow version now; null when it has none or is unknown. */
export async function findShadowVersion(db: Queryable, policyId: string): Promise<number | null> {
  const { rows } = await db.query<{ shadow_version: number | null }>(
    'select shadow_version from policies where id = $1',
    [policyId],
  );
  return rows[0]?.shadow_version ?? null;
}
