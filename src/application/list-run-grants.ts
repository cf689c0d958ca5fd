import { asRunId } from '../domain/gate/ids.js';
import { grantsOfRun, type GrantRow } from '../store/approval-grants.js';
import type { Member } from '../store/members.js';
import type { Pool } from '../store/pool.js';
import { findRun } from '../store/runs.js';

/** A run's grants for a member of its workspace; a run elsewhere is not there for them. */
export async function listRunGrants(
  pool: Pool,
  request: { member: Member; runId: string },
): Promise<{ outcome: 'listed'; grants: GrantRow[] } | { outcome: 'not_found' }> {
  const run = await findRun(pool, asRunId(request.runId));
  if (run?.workspace_id !== request.member.workspace_id) return { outcome: 'not_found' };
  return { outcome: 'listed', grants: await grantsOfRun(pool, run.id) };
}
