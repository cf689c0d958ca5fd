import type { SessionId, ToolCallId } from '../domain/gate/ids.js';
import type { DecidedAnswer, Denial } from '../domain/gate/vocabulary.js';
import { payload, redact } from '../domain/ledger/redaction.js';
import { appendEvent } from './ledger.js';
import { withTransaction, type Pool, type Queryable } from './pool.js';
import { findToolCall, recordBrokeredResult, recordDenialAtCall, stateOf } from './tool-calls.js';

type Result = Record<string, unknown>;

/** What became of one brokered call: the server's result, a failure to carry it out, or a deny. */
export type Brokered =
  { outcome: 'executed' | 'failed'; result: Result } | { outcome: 'denied'; denial: Denial };

/** The call a brokered outcome is recorded for. */
interface BrokeredCall {
  session_id: SessionId;
  tool_call_id: ToolCallId;
  tool: string;
}

/** A tool result that reports an error to the model. */
export const toolError = (text: string): Result => ({
  isError: true,
  content: [{ type: 'text', text }],
});

function deniedAnswer(denial: Denial): DecidedAnswer & { decision: 'deny' } {
  return { status: 'decided', decision: 'deny', source: denial.source, reason: denial.reason };
}

function brokeredEvent(call: BrokeredCall, brokered: Brokered, latencyMs: number | null) {
  const denial = brokered.outcome === 'denied' ? brokered.denial : undefined;
  const result = brokered.outcome === 'denied' ? null : brokered.result;
  return redact('tool.brokered', {
    tool_call_id: call.tool_call_id,
    tool: call.tool,
    outcome: brokered.outcome,
    source: denial?.source ?? null,
    reason: denial?.reason ?? null,
    latency_ms: latencyMs,
    is_error: result === null || result.isError === true,
    result: payload(result),
  });
}

/** The call as the gate recorded it: what a retried activity answers once it is settled. */
export async function recordedBrokeredAnswer(
  db: Queryable,
  call: BrokeredCall,
): Promise<DecidedAnswer> {
  const row = await findToolCall(db, call.session_id, call.tool_call_id);
  const state = row ? stateOf(row) : undefined;
  if (state?.status !== 'decided') throw new Error('the brokered call is not recorded as decided');
  return state;
}

/**
 * Records what a brokered call came to, in one transaction: its claim finished (made finished
 * when no attempt claimed it), the call's answer (its result, or the deny found at the call), and
 * tool.brokered. A call whose every attempt failed is recorded so too (`failed`, no latency), so
 * it never reads "evaluating" forever; an attempt that did finish after all keeps its own record.
 */
export function recordBrokeredOutcome(
  pool: Pool,
  call: BrokeredCall,
  brokered: Brokered,
  latencyMs: number | null,
): Promise<DecidedAnswer> {
  const { session_id: sessionId, tool_call_id: toolCallId } = call;
  return withTransaction(pool, async (tx) => {
    if (brokered.outcome === 'denied') {
      const answer = deniedAnswer(brokered.denial);
      await finishBrokeredCall(tx, sessionId, toolCallId, toolError(answer.reason));
      await recordDenialAtCall(tx, sessionId, toolCallId, answer);
    } else {
      await finishBrokeredCall(tx, sessionId, toolCallId, brokered.result);
      await recordBrokeredResult(tx, sessionId, toolCallId, brokered.result);
    }
    await appendEvent(tx, sessionId, brokeredEvent(call, brokered, latencyMs));
    return recordedBrokeredAnswer(tx, call);
  });
}

/**
 * Claims the one execution of a brokered call. Returns 'claimed' for the first caller; a retry
 * gets the stored result, or 'unknown' when an earlier attempt started and never finished.
 */
export async function claimBrokeredCall(
  db: Queryable,
  sessionId: SessionId,
  toolCallId: ToolCallId,
): Promise<
  | { state: 'claimed' }
  | { state: 'finished'; result: Record<string, unknown> }
  | { state: 'unknown' }
> {
  const claimed = await db.query(
    `insert into brokered_calls (session_id, tool_call_id) values ($1, $2)
     on conflict (session_id, tool_call_id) do nothing returning 1`,
    [sessionId, toolCallId],
  );
  if (claimed.rowCount === 1) return { state: 'claimed' };
  const { rows } = await db.query<{ result: Record<string, unknown> | null }>(
    'select result from brokered_calls where session_id = $1 and tool_call_id = $2',
    [sessionId, toolCallId],
  );
  const result = rows[0]?.result;
  return result ? { state: 'finished', result } : { state: 'unknown' };
}

/**
 * Finishes a call's claim with `result`; a call no attempt claimed (every one failed before) is
 * made finished. A result already there stays.
 */
async function finishBrokeredCall(
  db: Queryable,
  sessionId: SessionId,
  toolCallId: ToolCallId,
  result: Record<string, unknown>,
): Promise<void> {
  await db.query(
    `insert into brokered_calls (session_id, tool_call_id, finished_at, result)
     values ($1, $2, now(), $3)
     on conflict (session_id, tool_call_id) do update set finished_at = now(), result = $3
     where brokered_calls.finished_at is null`,
    [sessionId, toolCallId, JSON.stringify(result)],
  );
}
