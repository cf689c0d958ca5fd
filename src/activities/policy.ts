import { policyVerdict } from '../domain/gate/stage-verdicts.js';
import type { GateRequest, PolicyOutcome } from '../domain/gate/vocabulary.js';
import { observeShadow } from '../telemetry/activity-telemetry.js';
import type { FrozenRuns } from './frozen-runs.js';

/**
 * Stage 5: the run's frozen policy version and autonomy mode, and the policy's shadow version
 * beside it when it names one (recorded and counted, never deciding).
 */
export function policyStage(frozen: FrozenRuns) {
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
    return outcome;
  };
}
