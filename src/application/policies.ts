import type { PolicyBody } from '../domain/policy/policy.js';
import {
  findPolicyVersion,
  insertPolicy,
  insertPolicyVersion,
  setShadowVersion,
} from '../store/policies.js';
import type { Pool } from '../store/pool.js';
import { workspaceExists } from '../store/workspaces.js';
import { InvalidInputError, NotFoundError } from '../domain/errors.js';

/** A new policy at version 1. */
export async function createPolicy(
  pool: Pool,
  body: PolicyBody,
): Promise<{ id: string; version: number }> {
  if (!(await workspaceExists(pool, body.workspace))) {
    throw new NotFoundError(`workspace ${body.workspace}`);
  }
  return insertPolicy(pool, body);
}

/** Version n+1 of a policy. Versions are immutable: runs keep the version they froze. */
export async function revisePolicy(
  pool: Pool,
  policyId: string,
  body: PolicyBody,
): Promise<{ id: string; version: number }> {
  const created = await insertPolicyVersion(pool, policyId, body);
  if (!created) throw new NotFoundError(`policy ${policyId} in workspace ${body.workspace}`);
  return created;
}

/**
 * Names the version every call under the policy is also evaluated against, its verdict recorded
 * beside the decision and never changing it (null: none). Takes effect within seconds.
 */
export async function shadowPolicy(
  pool: Pool,
  policyId: string,
  version: number | null,
): Promise<{ id: string; shadow_version: number | null }> {
  const set = await setShadowVersion(pool, policyId, version);
  if (set) return set;
  const latest = await findPolicyVersion(pool, policyId);
  if (!latest) throw new NotFoundError(`policy ${policyId}`);
  throw new InvalidInputError(`policy ${policyId} has no version ${version}`, [
    { path: 'version', message: `at most ${latest.version}` },
  ]);
}
