import { prepared, type Queryable } from './pool.js';

/**
 * The channels PostgreSQL notifies on commit (see the wait-notifications migration and
 * `appendEvent`): a watched ledger stream appended to (payload: the stream id), a watched tool
 * call's answer written (payload: `[session_id, tool_call_id]` as JSON), a workspace's approvals
 * or members changed (payload: the workspace id). The first two only while watched
 * (`watchStream`, `watchToolCall`; the watched-waits migration says why no wake-up is lost).
 */
export const waitChannels = {
  ledger: 'ledger_appended',
  toolCall: 'tool_call_settled',
  approvals: 'approvals_changed',
} as const;

/** The heads of the given ledger streams, in one query, for the shared safety re-check. */
export async function ledgerHeads(
  db: Queryable,
  streamIds: readonly string[],
): Promise<{ stream_id: string; head_seq: number }[]> {
  const { rows } = await db.query<{ stream_id: string; head_seq: number }>(
    'select stream_id, head_seq from ledger_streams where stream_id = any($1::text[])',
    [streamIds],
  );
  return rows;
}

/** Which of the given calls have a final answer (as `stateOf` reads it), in one query. */
export async function answeredToolCalls(
  db: Queryable,
  calls: readonly (readonly [string, string])[],
): Promise<[string, string][]> {
  const { rows } = await db.query<{ session_id: string; tool_call_id: string }>(
    `select t.session_id, t.tool_call_id
     from unnest($1::text[], $2::text[]) as w (session_id, tool_call_id)
     join tool_calls t using (session_id, tool_call_id)
     where t.status = 'decided'
       and not (t.awaits_result and t.decision = 'allow' and not t.answer ? 'result')`,
    [calls.map((c) => c[0]), calls.map((c) => c[1])],
  );
  return rows.map((r) => [r.session_id, r.tool_call_id]);
}

/**
 * The stream watched for `ms` from now (the server's clock): its appends notify until then.
 * Whether it has a head to watch (every session's stream has one from its run's creation).
 */
export async function watchStream(db: Queryable, streamId: string, ms: number): Promise<boolean> {
  const { rowCount } = await db.query(
    prepared(
      `update ledger_streams
       set watched_until = greatest(watched_until, clock_timestamp() + $2 * interval '1 millisecond')
       where stream_id = $1`,
      [streamId, ms],
    ),
  );
  return rowCount === 1;
}

/**
 * The call watched for `ms` from now (the server's clock): changes to its answer notify until
 * then. Whether the call is there to watch.
 */
export async function watchToolCall(
  db: Queryable,
  sessionId: string,
  toolCallId: string,
  ms: number,
): Promise<boolean> {
  const { rowCount } = await db.query(
    prepared(
      `update tool_calls
       set watched_until = greatest(watched_until, clock_timestamp() + $3 * interval '1 millisecond')
       where session_id = $1 and tool_call_id = $2`,
      [sessionId, toolCallId, ms],
    ),
  );
  return rowCount === 1;
}
