import type { Queryable } from './pool.js';

/**
 * The channels PostgreSQL notifies on commit (see the wait-notifications migration and
 * `appendEvent`): a ledger stream appended to (payload: the stream id), a tool call's answer
 * written (payload: `[session_id, tool_call_id]` as JSON), a workspace's approvals or members
 * changed (payload: the workspace id).
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
