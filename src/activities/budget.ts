import { budgetVerdict } from '../domain/gate/stage-verdicts.js';
import type { GateRequest, StageOutcome } from '../domain/gate/vocabulary.js';
import { findBudget } from '../store/budget.js';
import type { Pool } from '../store/pool.js';

/** Stage 1: the run's budget as it stands now (never cached: model requests move it). */
export function budgetStage(pool: Pool) {
  return async function budget(request: GateRequest): Promise<StageOutcome> {
    return budgetVerdict(await findBudget(pool, request.run_id));
  };
}
