import type {
  DecidedAnswer,
  DenySource,
  GateAnswer,
  PendingAnswer,
  ToolCallState,
} from '../domain/gate/vocabulary.js';
import type { RunId, SessionId, ToolCallId } from '../domain/gate/ids.js';
import { foreign, payload, redact } from '../domain/ledger/redaction.js';
import { appendEvent, appendGuarded, lockStreamHead, type GuardedChange } from './ledger.js';
import { withTransaction, type Pool, type Queryable } from './pool.js';

export interface ToolCallRow {
  session_id: SessionId;
  tool_call_id: ToolCallId;
  run_id: RunId;
  tool: string;
  request_digest: string;
  status: 'evaluating' | 'pending_approval' | 'decided';
  decision: 'allow' | 'deny' | null;
  source: DenySource | null;
  answer: GateAnswer | null;
  awaits_result: boolean;
  created_at: Date;
  decided_at: Date | null;
}

const columns = `session_id, tool_call_id, run_id, tool, request_digest, status, decision, source,
  answer, awaits_result, created_at, decided_at`;

/** The columns of a `ToolCallRow`, each qualified by `alias`, for a query that joins the table. */
export const toolCallColumns = (alias: string) =>
  columns
    .split(',')
    .map((column) => `${alias}.${column.trim()}`)
    .join(', ');

/** A runner's call as first seen. */
interface RequestedCall {
  sessionId: SessionId;
  toolCallId: ToolCallId;
  runId: RunId;
  tool: string;
  arguments: Record<string, unknown>;
  execute: boolean;
  requestDigest: string;
  /** The run froze this tool: its name is the run's, else the runner's free text. */
  frozen: boolean;
  /** An executed brokered call: its answer is final only with its result. */
  awaitsResult: boolean;
}

/**
 * Records a call the first time it is seen, with tool.requested, all or nothing: in one
 * statement once the session's ledger has a head, else in one transaction. A retry, or a
 * concurrent request, gets the first record back and appends nothing. A call already recorded is
 * read without taking the session's head: its row may be changing under another writer (its
 * decision, its brokered result), which takes the row before the head, and a request holding the
 * head while waiting on that row would close a cycle.
 */
export async function recordToolCallRequest(pool: Pool, call: RequestedCall): Promise<ToolCallRow> {
  const event = requestedEvent(call);
  const guarded = await appendGuarded<ToolCallRow>(
    pool,
    call.sessionId,
    {
      sql: `insert into tool_calls (session_id, tool_call_id, run_id, tool, request_digest,
              awaits_result)
            select $1::text, $2::text, $3::uuid, $4::text, $5::text, $6::boolean
            where exists (select 1 from head)
            on conflict (session_id, tool_call_id) do nothing
            returning ${columns}`,
      values: requestValues(call),
      // The row's foreign key locks its run: the run first, as a revocation takes them. A call
      // recorded already takes no lock at all, and is read below.
      lockFirst: `select 1 from runs where id = $3::uuid
                    and not exists (select 1 from tool_calls
                                    where session_id = $1::text and tool_call_id = $2::text)
                  for key share`,
    },
    event,
  );
  if (guarded.outcome === 'changed') return guarded.row;
  const recorded = await findToolCall(pool, call.sessionId, call.toolCallId);
  if (recorded) return recorded;
  return withTransaction(pool, async (tx) => {
    // The run, then the head, then the row, as the one statement takes them (and a revocation
    // the run before the head): two requests of one call, or a request and a revocation, never
    // wait on each other in a cycle.
    await tx.query('select 1 from runs where id = $1 for key share', [call.runId]);
    await lockStreamHead(tx, call.sessionId);
    const { row, created } = await insertToolCall(tx, call);
    if (created) await appendEvent(tx, call.sessionId, event);
    return row;
  });
}

function requestedEvent(call: RequestedCall) {
  return redact('tool.requested', {
    tool_call_id: call.toolCallId,
    // A name the run never froze is the runner's free text: digest and length only.
    tool: call.frozen ? call.tool : foreign(call.tool),
    execute: call.execute,
    arguments: payload(call.arguments),
  });
}

const requestValues = (call: RequestedCall) => [
  call.sessionId,
  call.toolCallId,
  call.runId,
  call.tool,
  call.requestDigest,
  call.awaitsResult,
];

/** Inserts a call's row unless it is there; says whether this insert made it. */
async function insertToolCall(
  db: Queryable,
  call: RequestedCall,
): Promise<{ row: ToolCallRow; created: boolean }> {
  const inserted = await db.query<ToolCallRow>(
    `insert into tool_calls (session_id, tool_call_id, run_id, tool, request_digest, awaits_result)
     values ($1, $2, $3, $4, $5, $6)
     on conflict (session_id, tool_call_id) do nothing
     returning ${columns}`,
    requestValues(call),
  );
  if (inserted.rows[0]) return { row: inserted.rows[0], created: true };
  return { row: await recordedRequest(db, call), created: false };
}

/** The first record of a call that was there already. */
async function recordedRequest(db: Queryable, call: RequestedCall): Promise<ToolCallRow> {
  const existing = await findToolCall(db, call.sessionId, call.toolCallId);
  if (!existing) throw new Error('tool call vanished between insert and select');
  return existing;
}

/**
 * The sessions of a policy's runs with a call live within the window, the latest first: a call
 * is live from its row to its decision, and its workflow starts in between (a call sent again
 * after Temporal was away starts it later than the row). A minute wider each side than the
 * window, which the recorded calls' own start times then narrow.
 */
export async function sessionsWithCallsOf(
  db: Queryable,
  policyId: string,
  window: { since: Date; until: Date },
): Promise<string[]> {
  const { rows } = await db.query<{ session_id: string }>(
    `select t.session_id from tool_calls t join runs r on r.id = t.run_id
     where r.policy_id = $1
       and t.created_at < $3::timestamptz + interval '1 minute'
       and coalesce(t.decided_at, 'infinity') >= $2::timestamptz - interval '1 minute'
     group by t.session_id
     order by max(t.created_at) desc`,
    [policyId, window.since, window.until],
  );
  return rows.map((row) => row.session_id);
}

/**
 * Of the sessions a simulation names, those of the policy's own runs, in the order named: no
 * other session's history is fetched or opened, not even to be skipped.
 */
export async function sessionsOfPolicy(
  db: Queryable,
  policyId: string,
  sessions: readonly string[],
): Promise<string[]> {
  const { rows } = await db.query<{ session_id: string }>(
    `select s.session_id from unnest($2::text[]) with ordinality s(session_id, n)
     where exists (select 1 from runs r where r.policy_id = $1 and r.session_id = s.session_id)
     order by s.n`,
    [policyId, sessions],
  );
  return rows.map((row) => row.session_id);
}

export async function findToolCall(
  db: Queryable,
  sessionId: SessionId,
  toolCallId: ToolCallId,
): Promise<ToolCallRow | undefined> {
  const { rows } = await db.query<ToolCallRow>(
    `select ${columns} from tool_calls where session_id = $1 and tool_call_id = $2`,
    [sessionId, toolCallId],
  );
  return rows[0];
}

/** The decision's write: only a call not yet decided takes one. */
const decisionSql = (guard = '') =>
  `update tool_calls set status = 'decided', decision = $3, source = $4, answer = $5,
     decided_at = clock_timestamp()
   where session_id = $1 and tool_call_id = $2 and status <> 'decided'${guard}
   returning answer`;

const decisionValues = (sessionId: SessionId, toolCallId: ToolCallId, answer: DecidedAnswer) => [
  sessionId,
  toolCallId,
  answer.decision,
  answer.source ?? null,
  JSON.stringify(answer),
];

/** The decision's write as a guarded change, for one statement with its event (`appendGuarded`). */
export function guardedDecision(
  sessionId: SessionId,
  toolCallId: ToolCallId,
  answer: DecidedAnswer,
): GuardedChange {
  return {
    sql: decisionSql(' and exists (select 1 from head)'),
    values: decisionValues(sessionId, toolCallId, answer),
    // The call's row before the head, as every other writer of a call takes them (a person's
    // decision, a brokered result, an ended gate's deny): none waits on this one in a cycle.
    lockFirst: `select 1 from tool_calls where session_id = $1::text and tool_call_id = $2::text
                for no key update`,
  };
}

/** Records the decision once; a retried activity finds it already there and changes nothing. */
export async function recordToolCallDecision(
  db: Queryable,
  sessionId: SessionId,
  toolCallId: ToolCallId,
  answer: DecidedAnswer,
): Promise<DecidedAnswer> {
  const { rows } = await db.query<{ answer: DecidedAnswer }>(
    decisionSql(),
    decisionValues(sessionId, toolCallId, answer),
  );
  if (rows[0]) return rows[0].answer;
  const existing = await findToolCall(db, sessionId, toolCallId);
  if (existing?.status !== 'decided' || !existing.answer || existing.answer.status !== 'decided') {
    throw new Error(`tool call ${sessionId}/${toolCallId} is not recorded`);
  }
  return existing.answer;
}

/**
 * The call's state as a runner may rely on it: a decision is final unless an allowed executed
 * brokered call still waits for its result, which then reads as still evaluating.
 */
export function stateOf(row: ToolCallRow): ToolCallState {
  const answer = row.answer;
  if (!answer) return { status: 'evaluating' };
  if (
    answer.status === 'decided' &&
    answer.decision === 'allow' &&
    row.awaits_result &&
    !answer.result
  ) {
    return { status: 'evaluating' };
  }
  return answer;
}

/**
 * Marks a call as waiting for a person; the answer a retried PUT gets until it is decided.
 * False when the call was no longer evaluating (decided already): its record did not change.
 */
export async function recordPendingApproval(
  db: Queryable,
  sessionId: SessionId,
  toolCallId: ToolCallId,
  answer: PendingAnswer,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `update tool_calls set status = 'pending_approval', answer = $3
     where session_id = $1 and tool_call_id = $2 and status = 'evaluating'`,
    [sessionId, toolCallId, JSON.stringify(answer)],
  );
  return rowCount === 1;
}

/** Adds the brokered result to a decided allow, once. */
export async function recordBrokeredResult(
  db: Queryable,
  sessionId: SessionId,
  toolCallId: ToolCallId,
  result: Record<string, unknown>,
): Promise<void> {
  await db.query(
    `update tool_calls set answer = answer || jsonb_build_object('result', $3::jsonb)
     where session_id = $1 and tool_call_id = $2 and status = 'decided' and decision = 'allow'
       and not answer ? 'result'`,
    [sessionId, toolCallId, JSON.stringify(result)],
  );
}

/**
 * Turns an allowed brokered call into a deny found at the call itself (the tool changed, the
 * binding went stale while it waited), once, before any result was recorded.
 */
export async function recordDenialAtCall(
  db: Queryable,
  sessionId: SessionId,
  toolCallId: ToolCallId,
  answer: DecidedAnswer & { decision: 'deny' },
): Promise<void> {
  await db.query(
    `update tool_calls set decision = 'deny', source = $3, answer = $4, decided_at = clock_timestamp()
     where session_id = $1 and tool_call_id = $2 and status = 'decided' and decision = 'allow'
       and not answer ? 'result'`,
    [sessionId, toolCallId, answer.source ?? null, JSON.stringify(answer)],
  );
}
