import type { DecidedAnswer, GateRequest } from '../domain/gate.js';
import type { Pool } from '../store/pool.js';
import { recordToolCallDecision } from '../store/tool-calls.js';

/** Writes the decision to the state of record. Idempotent: a retry returns what was recorded. */
export function recordDecisionActivity(pool: Pool) {
  return async function recordDecision(
    request: GateRequest,
    answer: DecidedAnswer,
  ): Promise<DecidedAnswer> {
    return recordToolCallDecision(pool, request.session_id, request.tool_call_id, answer);
  };
}
