import { budgetVerdict } from '../domain/gate/stage-verdicts.js';
import type { GateRequest, StageOutcome } from '../domain/gate/vocabulary.js';
import { findBudget } from '../store/budget.js';
import type { Pool } from '../store/pool.js';
import { findRunSpendLevels } from '../store/spend-levels.js';

/** Stage 1: the run's budget and the levels above it as they stand now (never cached: model requests move it). */
export function budgetStage(pool: Pool) {
  return async function budget(request: GateRequest): Promise<StageOutcome> {
    const [budget, levels] = await Promise.all([
      findBudget(pool, request.run_id),
      findRunSpendLevels(pool, request.run_id),
    ]);
    return budgetVerdict(budget, levels);
  };
}
