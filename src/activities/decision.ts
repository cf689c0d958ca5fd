import { Context } from '@temporalio/activity';
import type {
  DecidedAnswer,
  GateAnswer,
  GateDecision,
  GateRequest,
} from '../domain/gate/vocabulary.js';
import { recordDecision as recordDecisionOnce } from '../store/decisions.js';
import type { Pool } from '../store/pool.js';
import { findToolCall } from '../store/tool-calls.js';
import { startApprovalDeliveries } from './webhook-delivery.js';

/**
 * Told each answer a call's record takes (a decision, or pending on a person) once its
 * transaction has committed, with the answer as recorded.
 */
export type AnswerRecorded = (request: GateRequest, answer: GateAnswer) => void;

/**
 * Writes the decision to the state of record and tool.decision to the ledger, in one
 * transaction (a fail-closed deny during the pause settles the approval too). Idempotent: a
 * retry returns what was recorded and appends nothing. An attempt the workflow stopped waiting
 * for (timed out, PostgreSQL frozen meanwhile) commits nothing when it wakes: the workflow may
 * have decided otherwise since, and the record must be its decision.
 */
export function recordDecisionActivity(pool: Pool, onRecorded: AnswerRecorded = () => undefined) {
  return async function recordDecision(
    request: GateRequest,
    decision: GateDecision,
  ): Promise<DecidedAnswer> {
    const answer = await recordDecisionOnce(
      pool,
      request,
      decision,
      Context.current().cancellationSignal,
    );
    onRecorded(request, answer);
    // A deny during the pause settled the approval: its notices go out as a person's would.
    if (decision.stage === 'approval') {
      await startApprovalDeliveries(
        pool,
        request.session_id,
        request.tool_call_id,
        'approval.decided',
      );
    }
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
