import { Context } from '@temporalio/activity';
import type {
  DecidedAnswer,
  GateAnswer,
  GateDecision,
  GateRequest,
} from '../domain/gate/vocabulary.js';
import { toolDecisionEvent } from '../domain/gate/decision-event.js';
import { appendEvent } from '../store/ledger.js';
import { withTransaction, type Pool } from '../store/pool.js';
import { findToolCall, recordToolCallDecision } from '../store/tool-calls.js';

/**
 * Told each answer a call's record takes (a decision, or pending on a person) once its
 * transaction has committed, with the answer as recorded.
 */
export type AnswerRecorded = (request: GateRequest, answer: GateAnswer) => void;

/**
 * Writes the decision to the state of record and tool.decision to the ledger, in one
 * transaction. Idempotent: a retry returns what was recorded and appends nothing. An attempt the
 * workflow stopped waiting for (timed out, PostgreSQL frozen meanwhile) commits nothing when it
 * wakes: the workflow may have decided otherwise since, and the record must be its decision.
 */
export function recordDecisionActivity(pool: Pool, onRecorded: AnswerRecorded = () => undefined) {
  return async function recordDecision(
    request: GateRequest,
    decision: GateDecision,
  ): Promise<DecidedAnswer> {
    const answer = await withTransaction(pool, async (tx) => {
      const recorded = await recordToolCallDecision(
        tx,
        request.session_id,
        request.tool_call_id,
        decision.answer,
      );
      await appendEvent(tx, request.session_id, toolDecisionEvent(request, decision, recorded));
      Context.current().cancellationSignal.throwIfAborted();
      return recorded;
    });
    onRecorded(request, answer);
    return answer;
  };
}

/** The call's decision as recorded, if it is decided. */
export async function recordedAnswer(
  pool: Pool,
  request: GateRequest,
): Promise<DecidedAnswer | undefined> {
  const row = await findToolCall(pool, request.session_id, request.tool_call_id);
  return row?.status === 'decided' && row.answer?.status === 'decided' ? row.answer : undefined;
}
