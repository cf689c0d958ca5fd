import { toolDecisionEvent } from '../domain/gate/decision-event.js';
import type { SessionId, ToolCallId } from '../domain/gate/ids.js';
import type { DecidedAnswer, GateDecision } from '../domain/gate/vocabulary.js';
import { settleAndRecord } from './approval-settlement.js';
import { appendEvent } from './ledger.js';
import { withTransaction, type Pool } from './pool.js';
import { recordToolCallDecision } from './tool-calls.js';

/** The call a decision is recorded for. */
interface DecidedCall {
  session_id: SessionId;
  tool_call_id: ToolCallId;
  tool: string;
}

/** A deny of the approval stage, reached while the call may wait on a person. */
function deniesAtApproval(
  decision: GateDecision,
): decision is GateDecision & { answer: { decision: 'deny' } } {
  return decision.stage === 'approval' && decision.answer.decision === 'deny';
}

/**
 * Records a call's decision and its tool.decision, in one transaction. Idempotent: a retry, or a
 * second writer, gets what was recorded first, and nothing more is appended. A deny of the
 * approval stage (the gate failed closed while the call waited on a person, or its workflow was
 * terminated) settles a still-pending approval first, as `failed_closed` with approval.decided,
 * by the same compare-and-swap as a person's decision: whichever comes first decides, the other
 * finds it decided, and the approval never disagrees with the call's decision. With `abandoned`
 * aborted by then, nothing commits: a writer its caller stopped waiting for must not decide.
 */
export async function recordDecision(
  pool: Pool,
  call: DecidedCall,
  decision: GateDecision,
  abandoned?: AbortSignal,
): Promise<DecidedAnswer> {
  return withTransaction(pool, async (tx) => {
    if (deniesAtApproval(decision)) {
      const settled = await settleAndRecord(tx, call.session_id, call.tool_call_id, {
        by: 'gate',
        decision,
      });
      if (settled.outcome === 'decided') {
        abandoned?.throwIfAborted();
        return settled.answer;
      }
    }
    const recorded = await recordToolCallDecision(
      tx,
      call.session_id,
      call.tool_call_id,
      decision.answer,
    );
    await appendEvent(tx, call.session_id, toolDecisionEvent(call, decision, recorded));
    abandoned?.throwIfAborted();
    return recorded;
  });
}
