import type { SessionId, ToolCallId } from '../domain/gate/ids.js';
import type { Queryable } from './pool.js';

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

export async function finishBrokeredCall(
  db: Queryable,
  sessionId: SessionId,
  toolCallId: ToolCallId,
  result: Record<string, unknown>,
): Promise<void> {
  await db.query(
    `update brokered_calls set finished_at = now(), result = $3
     where session_id = $1 and tool_call_id = $2 and finished_at is null`,
    [sessionId, toolCallId, JSON.stringify(result)],
  );
}

/**
 * Settles a call whose every broker attempt failed: the claim, if an attempt made one, is
 * finished with `result`; without one it is made finished. A result already there stays.
 */
export async function settleFailedBrokeredCall(
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
