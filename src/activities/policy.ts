import { lengthText } from '../domain/approvals/grant-lengths.js';
import { coveringGrant } from '../domain/approvals/grants.js';
import { policyVerdict } from '../domain/gate/stage-verdicts.js';
import type { GateRequest, PolicyOutcome } from '../domain/gate/vocabulary.js';
import { activeGrantsOfRun } from '../store/approval-grants.js';
import type { Queryable } from '../store/pool.js';
import { observeShadow } from '../telemetry/activity-telemetry.js';
import type { FrozenRuns } from './frozen-runs.js';

/**
 * Stage 5: the run's frozen policy version and autonomy mode, and the policy's shadow version
 * beside it when it names one (recorded and counted, never deciding). A verdict that asks a
 * person is then checked against the run's standing approvals (only a supervised run's can still
 * ask one): a covering grant answers for the approval stage, so the call never pauses, and
 * nothing that an earlier stage or the policy denied is ever reached.
 */
export function policyStage(frozen: FrozenRuns, db: Queryable) {
  return async function policy(request: GateRequest): Promise<PolicyOutcome> {
    const { run, called } = await frozen.call(request);
    const [version, shadow] = await Promise.all([frozen.policy(run), frozen.shadow(run)]);
    const outcome = policyVerdict(
      { id: run.policy_id, version: run.policy_version, body: version.body },
      run.autonomy,
      called,
      request.arguments,
      shadow && { version: shadow.version, body: shadow.body },
    );
    if (outcome.outcome === 'verdict' && outcome.shadow) observeShadow(outcome.shadow.agrees);
    if (outcome.outcome !== 'verdict' || outcome.verdict !== 'require_approval' || !called.frozen)
      return outcome;
    const owner = called.frozen.binding?.owner_user_id ?? null;
    const grant = coveringGrant(await activeGrantsOfRun(db, run.id), {
      tool: called.frozen.name,
      arguments: request.arguments,
      asked: { rule_id: outcome.rule_id, policy_version: outcome.policy_version },
      at: new Date(),
      authority: {
        workspace_id: run.workspace_id,
        authority: owner ? 'owner' : 'workspace_approvers',
        owner_user_id: owner,
      },
    });
    if (!grant) return outcome;
    const { id, granted_by, granted_by_name, for_s } = grant;
    return { ...outcome, grant: { id, granted_by, granted_by_name, length: lengthText(for_s) } };
  };
}
