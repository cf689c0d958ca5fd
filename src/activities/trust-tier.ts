import type { GateRequest, StageOutcome } from '../domain/gate/vocabulary.js';
import type { FrozenRuns } from './frozen-runs.js';

/**
 * Stage 4: a read_only run may read, never write nor use a sealed credential. Enforced above
 * policy and approval: nothing after this stage can lift it.
 */
export function trustTierStage(frozen: FrozenRuns) {
  return async function trustTier(request: GateRequest): Promise<StageOutcome> {
    const run = await frozen.run(request.run_id);
    if (run.trust_tier !== 'read_only') return { outcome: 'pass' };
    const tool = run.toolset.find((t) => t.name === request.tool);
    if (!tool || tool.effect === 'write' || tool.binding !== null) {
      return {
        outcome: 'deny',
        source: 'trust_tier',
        reason: `the run is read_only: "${request.tool}" ${tool?.binding ? 'uses a sealed credential' : 'may write'}`,
      };
    }
    return { outcome: 'pass' };
  };
}
