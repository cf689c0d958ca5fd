import { capabilityVerdict } from '../domain/gate/stage-verdicts.js';
import type { GateRequest, StageOutcome } from '../domain/gate/vocabulary.js';
import { findBindingState } from '../store/connections.js';
import type { Pool } from '../store/pool.js';
import type { FrozenRuns } from './frozen-runs.js';

/**
 * Stage 2: the frozen tool, and for a brokered one its connection. The connection is read fresh
 * for every call: this is the one thing never cached. A sandbox tool's server runs beside the
 * runner, so there the runner's report of what it serves counts (it can only deny).
 */
export function capabilityStage(frozen: FrozenRuns, pool: Pool) {
  return async function capability(request: GateRequest): Promise<StageOutcome> {
    const { called } = await frozen.call(request);
    const binding = called.frozen?.binding;
    const connection = binding ? await findBindingState(pool, binding.connection_id) : undefined;
    return capabilityVerdict(called, connection, request.observed_digest);
  };
}
