import type { DecidedAnswer, GateDecision, GateRequest } from '../domain/gate/vocabulary.js';
import { toolDecisionEvent } from '../domain/gate/decision-event.js';
import { appendEvent } from '../store/ledger.js';
import { withTransaction, type Pool } from '../store/pool.js';
import { recordToolCallDecision } from '../store/tool-calls.js';

/**
 * Writes the decision to the state of record and tool.decision to the ledger, in one
 * transaction. Idempotent: a retry returns what was recorded and appends nothing.
 */
export function recordDecisionActivity(pool: Pool) {
  return async function recordDecision(
    request: GateRequest,
    decision: GateDecision,
  ): Promise<DecidedAnswer> {
    return withTransaction(pool, async (tx) => {
      const recorded = await recordToolCallDecision(
        tx,
        request.session_id,
        request.tool_call_id,
        decision.answer,
      );
      await appendEvent(tx, request.session_id, toolDecisionEvent(request, decision, recorded));
      return recorded;
    });
  };
}
