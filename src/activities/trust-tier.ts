import { trustTierVerdict } from '../domain/gate/stage-verdicts.js';
import type { GateRequest, StageOutcome } from '../domain/gate/vocabulary.js';
import type { FrozenRuns } from './frozen-runs.js';

/** Stage 4: the run's frozen trust tier against the tool's effect and credential. */
export function trustTierStage(frozen: FrozenRuns) {
  return async function trustTier(request: GateRequest): Promise<StageOutcome> {
    const { run, called } = await frozen.call(request);
    return trustTierVerdict(run.trust_tier, called);
  };
}
