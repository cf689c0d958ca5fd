import { toolDecisionEvent } from '../domain/gate/decision-event.js';
import type { SessionId, ToolCallId } from '../domain/gate/ids.js';
import type { DecidedAnswer, GateDecision } from '../domain/gate/vocabulary.js';
import { settleAndRecord } from './approval-settlement.js';
import { appendEvent, appendGuarded } from './ledger.js';
import type pg from 'pg';
import { withTransaction, type Pool } from './pool.js';
import { guardedDecision, recordToolCallDecision } from './tool-calls.js';

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
  { oneStatement = true }: { oneStatement?: boolean } = {},
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
    const recorded = await recordCallDecision(tx, call, decision, oneStatement);
    abandoned?.throwIfAborted();
    return recorded;
  });
}

/**
 * The call's decision and its tool.decision, inside the caller's transaction: in one statement
 * when the call is still undecided; else (a retry finding it decided) by the locked path, which
 * appends nothing twice. Both take the call's row before the session's head, as every writer of a
 * call does. An approval-stage decision may race a person's and settles the approval first, so it
 * goes the locked path, as does any writer but the call's own workflow (`oneStatement: false`).
 */
async function recordCallDecision(
  tx: pg.PoolClient,
  call: DecidedCall,
  decision: GateDecision,
  oneStatement: boolean,
): Promise<DecidedAnswer> {
  if (oneStatement && decision.stage !== 'approval') {
    const guarded = await appendGuarded<{ answer: DecidedAnswer }>(
      tx,
      call.session_id,
      guardedDecision(call.session_id, call.tool_call_id, decision.answer),
      toolDecisionEvent(call, decision, decision.answer),
    );
    if (guarded.outcome === 'changed') return guarded.row.answer;
  }
  const recorded = await recordToolCallDecision(
    tx,
    call.session_id,
    call.tool_call_id,
    decision.answer,
  );
  await appendEvent(tx, call.session_id, toolDecisionEvent(call, decision, recorded));
  return recorded;
}
