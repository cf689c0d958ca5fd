import type { RunId } from '../domain/gate/ids.js';
import type { Member } from '../store/members.js';
import type { Pool } from '../store/pool.js';
import { revokeRun, type RunRevocation } from '../store/run-revocations.js';
import { findRun } from '../store/runs.js';
import type { GateWorkflowClient } from '../temporal/gate-workflow-client.js';
import { ForbiddenError, NotFoundError } from '../domain/errors.js';

/** Who asks: the operator revokes any run; a member only a run they invoked. */
type Revoker = { kind: 'operator' } | { kind: 'member'; member: Member };

/**
 * Revokes a run: from then its session token is refused everywhere, and the calls its pending
 * approvals paused are denied; their workflows are woken to read that. Idempotent: revoking
 * again returns the first revocation. A member of another workspace learns nothing (404).
 */
export async function revokeRunAs(
  deps: { pool: Pool; gate: GateWorkflowClient },
  runId: RunId,
  revoker: Revoker,
): Promise<RunRevocation> {
  const run = await findRun(deps.pool, runId);
  const member = revoker.kind === 'member' ? revoker.member : undefined;
  if (!run || (member && member.workspace_id !== run.workspace_id))
    throw new NotFoundError(`run ${runId}`);
  if (member && member.status !== 'active')
    throw new ForbiddenError('this membership is suspended');
  if (member && member.id !== run.invoked_by)
    throw new ForbiddenError("only the run's invoker or the operator may revoke it");
  const { revocation, denied } = await revokeRun(deps.pool, run, member?.id ?? null);
  for (const toolCallId of denied) deps.gate.wake(run.session_id, toolCallId);
  return revocation;
}
