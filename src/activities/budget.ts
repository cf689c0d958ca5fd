import { budgetVerdict } from '../domain/gate/stage-verdicts.js';
import type { GateRequest, StageOutcome } from '../domain/gate/vocabulary.js';
import type { Pool } from '../store/pool.js';
import { findRunSpend } from '../store/spend-levels.js';

/**
 * Stage 1: the run's budget and the levels above it as they stand now, in one statement (never
 * cached: model requests move them).
 */
export function budgetStage(pool: Pool) {
  return async function budget(request: GateRequest): Promise<StageOutcome> {
    const { budget, levels } = await findRunSpend(pool, request.run_id);
    return budgetVerdict(budget, levels);
  };
}
