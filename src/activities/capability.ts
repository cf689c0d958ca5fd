import type { GateRequest, StageOutcome } from '../domain/gate.js';
import { reportedDriftVerdict } from '../domain/gate/reported-drift.js';
import type { FrozenTool } from '../domain/tools.js';
import { findBindingState } from '../store/connections.js';
import type { Pool } from '../store/pool.js';
import type { FrozenRuns } from './frozen-runs.js';

const deny = (source: 'capability' | 'binding', reason: string): StageOutcome => ({
  outcome: 'deny',
  source,
  reason,
});

/**
 * Stage 2: the tool must be in the set the run froze, and a brokered tool's connection must
 * still offer exactly what was frozen (the rug-pull defence) under the same authorisation.
 * The connection is read fresh for every call: this is the one thing never cached. A sandbox
 * tool's server runs beside the runner, so there the runner's report of what it serves counts.
 */
export function capabilityStage(frozen: FrozenRuns, pool: Pool) {
  async function brokered(tool: FrozenTool): Promise<StageOutcome> {
    const binding = tool.binding;
    if (!binding) return deny('binding', `"${tool.name}" has no binding to a connection`);
    const connection = await findBindingState(pool, binding.connection_id);
    if (connection?.status !== 'active') {
      return deny(
        'binding',
        `the connection behind "${tool.name}" is ${connection ? 'revoked' : 'gone'}`,
      );
    }
    const current = connection.tools.find((t) => t.name === tool.name);
    if (!current)
      return deny(
        'capability',
        `"${tool.name}" was withdrawn by its server since the run froze it`,
      );
    if (current.digest !== tool.digest) {
      return deny(
        'capability',
        `"${tool.name}" drifted since the run froze it: its server changed it`,
      );
    }
    if (connection.auth_generation !== binding.auth_generation) {
      return deny(
        'binding',
        `the connection behind "${tool.name}" was reauthorized since the run froze it (stale binding)`,
      );
    }
    return { outcome: 'pass' };
  }

  return async function capability(request: GateRequest): Promise<StageOutcome> {
    const run = await frozen.run(request.run_id);
    const tool = run.toolset.find((t) => t.name === request.tool);
    if (!tool)
      return deny('capability', `tool "${request.tool}" is not in the run's frozen tool set`);
    const reported = reportedDriftVerdict(tool, request.observed_digest);
    if (reported.outcome === 'deny') return reported;
    return tool.class === 'brokered' ? brokered(tool) : { outcome: 'pass' };
  };
}
