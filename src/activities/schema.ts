import { validateArguments } from '../domain/tools/argument-validation.js';
import type { GateRequest, StageOutcome } from '../domain/gate/vocabulary.js';
import type { FrozenRuns } from './frozen-runs.js';

/**
 * Stage 3: the arguments against the schema frozen at run creation. A denial is rendered to the
 * model as a failed tool execution, naming the failing paths, so it can correct itself.
 */
export function schemaStage(frozen: FrozenRuns) {
  return async function schema(request: GateRequest): Promise<StageOutcome> {
    const run = await frozen.run(request.run_id);
    const tool = run.toolset.find((t) => t.name === request.tool);
    if (!tool)
      return {
        outcome: 'deny',
        source: 'capability',
        reason: `tool "${request.tool}" is not frozen`,
      };
    if (!tool.callable) {
      return {
        outcome: 'deny',
        source: 'schema',
        reason: `"${tool.name}" is uncallable: its schema failed the guard (${tool.uncallable_reason ?? 'unknown reason'})`,
        render: 'tool_error',
      };
    }
    // The tool's digest covers its schema, so it keys the compiled-validator cache.
    const result = validateArguments(tool.input_schema, tool.digest, request.arguments);
    if (result.valid) return { outcome: 'pass' };
    if (result.kind === 'schema') {
      return {
        outcome: 'deny',
        source: 'schema',
        reason: `"${tool.name}" is uncallable: ${result.message}`,
        render: 'tool_error',
      };
    }
    return {
      outcome: 'deny',
      source: 'schema',
      reason: `the arguments do not match the schema of "${tool.name}": ${result.message}`,
      render: 'tool_error',
      // The failing paths name argument keys, which are the caller's payload: the ledger gets a count.
      ledger_reason: `the arguments do not match the schema of "${tool.name}" (${result.errors.length} failing path${result.errors.length === 1 ? '' : 's'})`,
    };
  };
}
