import type { GateRequest, StageOutcome } from '../domain/gate.js';
import type { FrozenRuns } from './frozen-runs.js';

/** Stage 2: the tool must be in the set the run froze. */
export function capabilityStage(frozen: FrozenRuns) {
  return async function capability(request: GateRequest): Promise<StageOutcome> {
    const run = await frozen.run(request.run_id);
    if (!run.toolset.some((tool) => tool.name === request.tool)) {
      return {
        outcome: 'deny',
        source: 'capability',
        reason: `tool "${request.tool}" is not in the run's frozen tool set`,
      };
    }
    return { outcome: 'pass' };
  };
}
