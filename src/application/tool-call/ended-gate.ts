import { brokerFailed, endedGateDecision, type GateEnding } from '../../domain/gate/decisions.js';
import type { ToolCallId } from '../../domain/gate/ids.js';
import type { DecidedAnswer } from '../../domain/gate/vocabulary.js';
import { recordDecision } from '../../store/decisions.js';
import type { Pool } from '../../store/pool.js';
import type { FrozenRun } from '../../store/runs.js';
import { findToolCall, stateOf } from '../../store/tool-calls.js';
import { deliveryIdsFor } from '../../store/webhooks.js';
import type { GateWorkflowClient } from '../../temporal/gate-workflow-client.js';
import { NotFoundError } from '../../domain/errors.js';
import { frozenTool } from '../../domain/tools/tools.js';

export interface EndedGateDeps {
  pool: Pool;
  gate: GateWorkflowClient;
}

/**
 * The answer of a call whose gate workflow has closed: its recorded decision, or, when the gate
 * closed without one (an operator terminated it while it waited on a person, it failed closed
 * past its bounds), a deny recorded here once. A paused call's approval is settled with it
 * (`failed_closed`), so a person deciding later is told the call was decided.
 */
export async function answerEndedGate(
  deps: EndedGateDeps,
  run: FrozenRun,
  toolCallId: ToolCallId,
  ending: GateEnding,
): Promise<DecidedAnswer> {
  const current = await findToolCall(deps.pool, run.session_id, toolCallId);
  if (!current) throw new NotFoundError(`tool call ${toolCallId}`);
  const state = stateOf(current);
  if (state.status === 'decided') return state;
  if (current.answer?.status === 'decided') {
    // An executed brokered call whose gate ended before its result: it was not carried out.
    return brokerFailed(current.answer, 'the gate ended before the result');
  }
  const decision = endedGateDecision(ending, current.status === 'pending_approval');
  const frozen = frozenTool(run.toolset, current.tool) !== undefined;
  // Not the call's own workflow: the locked path, which takes the call's row before the
  // ledger's head as every other writer of a call's decision does.
  const answer = await recordDecision(
    deps.pool,
    current,
    frozen ? decision : { ...decision, tool_unfrozen: true },
    undefined,
    { oneStatement: false },
  );
  if (decision.stage === 'approval') {
    // The approval was settled: its notices go out as a person's would (stored already, so a
    // Temporal away now costs the notice's delivery, not the answer).
    const notices = await deliveryIdsFor(deps.pool, run.session_id, toolCallId, 'approval.decided');
    await deps.gate.startDeliveries(notices).catch(() => undefined);
  }
  return answer;
}

/**
 * A call the record shows undecided, answered as `answerEndedGate` does when Temporal says its
 * gate has closed; undefined while the gate runs, or when Temporal or PostgreSQL cannot say (the
 * caller answers from the record, and the next look tries again).
 */
export async function answerIfGateEnded(
  deps: EndedGateDeps,
  run: FrozenRun,
  toolCallId: ToolCallId,
): Promise<DecidedAnswer | undefined> {
  try {
    const ending = await deps.gate.ending(run.session_id, toolCallId);
    return ending && (await answerEndedGate(deps, run, toolCallId, ending));
  } catch {
    return undefined;
  }
}
