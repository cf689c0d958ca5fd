import type { GateRequest, StageOutcome } from '../domain/gate/vocabulary.js';
import { findBudget } from '../store/budget.js';
import type { Pool } from '../store/pool.js';

/**
 * Stage 1: a run whose allowance is spent stops here, before anything else is evaluated.
 * Held tokens count as spent: they are booked for model requests still in flight.
 */
export function budgetStage(pool: Pool) {
  return async function budget(request: GateRequest): Promise<StageOutcome> {
    const { max_tokens, held_tokens, used_tokens } = await findBudget(pool, request.run_id);
    if (used_tokens + held_tokens >= max_tokens) {
      return {
        outcome: 'deny',
        source: 'budget',
        reason: `the run's token budget is spent: ${used_tokens} used and ${held_tokens} held of ${max_tokens}`,
      };
    }
    return { outcome: 'pass' };
  };
}
