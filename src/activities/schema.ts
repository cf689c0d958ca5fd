import { schemaVerdict } from '../domain/gate/stage-verdicts.js';
import type { GateRequest, StageOutcome } from '../domain/gate/vocabulary.js';
import type { FrozenRuns } from './frozen-runs.js';

/** Stage 3: the arguments against the schema the run froze. */
export function schemaStage(frozen: FrozenRuns) {
  return async function schema(request: GateRequest): Promise<StageOutcome> {
    const { called } = await frozen.call(request);
    return schemaVerdict(called, request.arguments);
  };
}
