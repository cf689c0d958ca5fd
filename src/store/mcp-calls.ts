import type { SessionId, ToolCallId } from '../domain/gate/ids.js';
import type { GateDecision } from '../domain/gate/vocabulary.js';
import { settleAndRecord, type Settlement } from './approval-settlement.js';
import { withTransaction, type Pool, type Queryable } from './pool.js';
import { toolCallColumns, type ToolCallRow } from './tool-calls.js';

/** How a call came through `/mcp`: as a task, or plainly (a retry re-attaches by its key). */
type McpCallKind = 'task' | 'plain';

/** The open call of the session of this kind with this key (tool and canonical arguments). */
async function findOpenCall(
  db: Queryable,
  sessionId: SessionId,
  kind: McpCallKind,
  callKey: string,
): Promise<ToolCallId | undefined> {
  const { rows } = await db.query<{ tool_call_id: ToolCallId }>(
    `select tool_call_id from mcp_calls
     where session_id = $1 and kind = $2 and call_key = $3 and open`,
    [sessionId, kind, callKey],
  );
  return rows[0]?.tool_call_id;
}

/**
 * Records a call made through `/mcp`. A call whose key another open call of the session of the
 * same kind already holds is not recorded: that one's id is returned, and the caller goes on
 * with it instead.
 */
export async function recordMcpCall(
  db: Queryable,
  call: { sessionId: SessionId; toolCallId: ToolCallId; kind: McpCallKind; callKey: string },
): Promise<ToolCallId> {
  const { rows } = await db.query<{ tool_call_id: ToolCallId }>(
    `insert into mcp_calls (session_id, tool_call_id, kind, call_key) values ($1, $2, $3, $4)
     on conflict do nothing returning tool_call_id`,
    [call.sessionId, call.toolCallId, call.kind, call.callKey],
  );
  if (rows[0]) return rows[0].tool_call_id;
  return (await findOpenCall(db, call.sessionId, call.kind, call.callKey)) ?? call.toolCallId;
}

/**
 * A call the client has been handed (a plain call's decision, a task's creation): the next
 * same call is a new one.
 */
export async function closeMcpCall(
  db: Queryable,
  sessionId: SessionId,
  toolCallId: ToolCallId,
): Promise<void> {
  await db.query(
    `update mcp_calls set open = false where session_id = $1 and tool_call_id = $2 and open`,
    [sessionId, toolCallId],
  );
}

/** A task of the session: its call's record, and whether the client cancelled it. */
export interface McpTaskRow extends ToolCallRow {
  cancelled: boolean;
}

/**
 * A call this session made as a task through `/mcp`, or nothing: a task id reaches no call of
 * another session, and no call made any other way.
 */
export async function findMcpTask(
  db: Queryable,
  sessionId: SessionId,
  toolCallId: ToolCallId,
): Promise<McpTaskRow | undefined> {
  const { rows } = await db.query<McpTaskRow>(
    `select ${toolCallColumns('c')}, m.cancelled from mcp_calls m
       join tool_calls c using (session_id, tool_call_id)
     where m.session_id = $1 and m.tool_call_id = $2 and m.kind = 'task'`,
    [sessionId, toolCallId],
  );
  return rows[0];
}

/**
 * Withdraws a task's pending approval, in one transaction: the approval settled as the gate's
 * deny (with its approval.decided and tool.decision), and the task marked cancelled. Whoever
 * settles the approval first wins: a person who decided before leaves it `already_decided`.
 */
export function withdrawTaskApproval(
  pool: Pool,
  sessionId: SessionId,
  toolCallId: ToolCallId,
  decision: GateDecision & { answer: { decision: 'deny' } },
): Promise<Settlement> {
  return withTransaction(pool, async (tx) => {
    const settled = await settleAndRecord(tx, sessionId, toolCallId, { by: 'gate', decision });
    if (settled.outcome === 'decided') {
      await tx.query(
        `update mcp_calls set cancelled = true
         where session_id = $1 and tool_call_id = $2 and kind = 'task'`,
        [sessionId, toolCallId],
      );
    }
    return settled;
  });
}
