import type { PolicyBody } from '../domain/policy/policy.js';
import { insertPolicy, insertPolicyVersion } from '../store/policies.js';
import type { Pool } from '../store/pool.js';
import { workspaceExists } from '../store/workspaces.js';
import { NotFoundError } from './errors.js';

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
