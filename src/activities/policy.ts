import { policyVerdict } from '../domain/gate/stage-verdicts.js';
import type { GateRequest, PolicyOutcome } from '../domain/gate/vocabulary.js';
import type { FrozenRuns } from './frozen-runs.js';

/** Stage 5: the run's frozen policy version and autonomy mode. */
export function policyStage(frozen: FrozenRuns) {
  return async function policy(request: GateRequest): Promise<PolicyOutcome> {
    const { run, called } = await frozen.call(request);
    const version = await frozen.policy(run);
    return policyVerdict(
      { id: run.policy_id, version: run.policy_version, body: version.body },
      run.autonomy,
      called,
      request.arguments,
    );
  };
}
