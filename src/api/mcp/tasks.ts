import type { Task } from '@modelcontextprotocol/sdk/types.js';
import type { McpTaskRow } from '../../application/tool-call/mcp-calls.js';
import { answerOfRecord } from '../../application/tool-call/tool-calls.js';

/** How often a client is asked to poll a task that waits for a person (milliseconds). */
const taskPollIntervalMs = 2_000;

/**
 * A gate tool call as the MCP task it is: working until decided, then completed (an allow,
 * with the upstream's result) or failed (a deny, its reason the status message), or cancelled
 * when its client withdrew it. Kept as long as the call's record: no time-to-live.
 */
export function taskOf(row: McpTaskRow): Task {
  const state = answerOfRecord(row);
  const times = {
    createdAt: row.created_at.toISOString(),
    lastUpdatedAt: (row.decided_at ?? row.created_at).toISOString(),
  };
  const task = { taskId: row.tool_call_id, ttl: null, ...times };
  if (row.cancelled)
    return { ...task, status: 'cancelled', statusMessage: 'cancelled by the client' };
  if (state.status === 'decided') {
    return state.decision === 'allow'
      ? { ...task, status: 'completed' }
      : { ...task, status: 'failed', statusMessage: state.reason };
  }
  const waiting =
    state.status === 'pending_approval'
      ? `waiting for an approval at ${state.approval.url} (until ${state.approval.expires_at})`
      : 'being evaluated by the gate';
  return { ...task, status: 'working', statusMessage: waiting, pollInterval: taskPollIntervalMs };
}
