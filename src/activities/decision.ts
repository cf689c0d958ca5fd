import type { DecidedAnswer, GateDecision, GateRequest } from '../domain/gate.js';
import { redact } from '../domain/redaction.js';
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
      await appendEvent(
        tx,
        request.session_id,
        redact('tool.decision', {
          tool_call_id: request.tool_call_id,
          tool: request.tool,
          decision: recorded.decision,
          stage: decision.stage,
          source: recorded.source ?? null,
          reason: recorded.reason,
          rule_id: recorded.rule_id ?? null,
          verdict: decision.verdict ?? null,
          original_verdict: decision.original_verdict ?? null,
          decided_by: decision.decided_by ?? null,
        }),
      );
      return recorded;
    });
  };
}
