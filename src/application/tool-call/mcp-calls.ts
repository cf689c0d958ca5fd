import { randomUUID } from 'node:crypto';
import { withdrawnDecision } from '../../domain/gate/decisions.js';
import { asToolCallId, type ToolCallId } from '../../domain/gate/ids.js';
import type { DecidedAnswer, ToolCallState } from '../../domain/gate/vocabulary.js';
import { digestOf } from '../../domain/ledger/digest.js';
import {
  closeMcpCall,
  findMcpTask,
  recordMcpCall,
  withdrawTaskApproval,
  type McpTaskRow,
} from '../../store/mcp-calls.js';
import type { Pool } from '../../store/pool.js';
import type { FrozenRun } from '../../store/runs.js';
import { stateOf } from '../../store/tool-calls.js';
import type { Waker } from '../../temporal/gate-workflow-client.js';
import { ConflictError, NotFoundError } from '../../domain/errors.js';
import type { ToolCalls } from './tool-calls.js';
import { frozenTool } from '../../domain/tools/tools.js';

export type { McpTaskRow };

/**
 * A tool call that came through the remote MCP endpoint: its life is the runner's (recorded,
 * decided by the gate workflow, a brokered one carried out by the gate), through the same
 * door the REST routes use (`ToolCalls`: submit, answer); what is added here is only how
 * an MCP client names a call it makes again, and its tasks.
 */
export interface McpCall {
  /** The frozen name, as `/mcp` lists it. */
  tool: string;
  arguments: Record<string, unknown>;
}

interface McpCallDeps {
  pool: Pool;
  gate: Waker;
  toolCalls: ToolCalls;
}

interface McpCallAnswer {
  toolCallId: ToolCallId;
  state: ToolCallState;
}

/** The tools `/mcp` serves: the run's frozen brokered tools, in the order of their names. */
export function remoteTools(run: FrozenRun) {
  return run.toolset
    .filter((tool) => tool.class === 'brokered' && tool.callable && tool.mcp_name !== undefined)
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** What identifies "the same call" across a client's retries: the tool and its arguments. */
const callKeyOf = (call: McpCall) => digestOf({ tool: call.tool, arguments: call.arguments });

function gateCall(run: FrozenRun, call: McpCall) {
  // Only a brokered tool is carried out by the gate; any other name is asked as it is (an
  // unfrozen one is denied, and the ledger shows it was tried).
  const brokered = frozenTool(run.toolset, call.tool)?.class === 'brokered';
  return { tool: call.tool, arguments: call.arguments, execute: brokered };
}

/**
 * A plain `tools/call`: decided within `waitMs`, or still pending a person. A call stays open
 * under its tool and arguments until its decision has been handed to the client: the same call
 * made again in the run meanwhile (after "call again", or at the same time) re-attaches to it,
 * never a second approval, never a second execution.
 */
export async function callThroughMcp(
  deps: McpCallDeps,
  run: FrozenRun,
  call: McpCall,
  waitMs: number,
  signal: AbortSignal,
  { requestId, onPending }: { requestId?: string; onPending?: (state: ToolCallState) => void } = {},
): Promise<McpCallAnswer> {
  const deadline = Date.now() + waitMs;
  // The key is taken before the call is recorded: a call whose first answer was a failure (the
  // gate unavailable) is the one its retry re-attaches to, and never runs a second time.
  const fresh = asToolCallId(`mcp-${randomUUID()}`);
  const toolCallId = await recordMcpCall(deps.pool, {
    sessionId: run.session_id,
    toolCallId: fresh,
    kind: 'plain',
    callKey: callKeyOf(call),
  });
  const recorded =
    toolCallId === fresh ? undefined : await deps.toolCalls.recorded(run, toolCallId);
  // Asked (again) unless it waits on a person: submitting is idempotent by the id.
  let state =
    recorded && recorded.status !== 'evaluating'
      ? recorded
      : await deps.toolCalls.submit(run, toolCallId, gateCall(run, call), requestId);
  if (state.status !== 'decided') {
    onPending?.(state);
    const left = Math.max(0, deadline - Date.now());
    state = await deps.toolCalls.answer(run, toolCallId, left, signal);
  }
  if (state.status === 'decided') await closeMcpCall(deps.pool, run.session_id, toolCallId);
  return { toolCallId, state };
}

/**
 * A task-augmented `tools/call`: recorded and put to the gate at once. The task's id is the
 * tool-call id, which only this run's session reaches (`findMcpTask`). As a plain call's, its key
 * is taken before the call is recorded and held until the task is created: a retry of a task
 * whose creation was answered "unavailable" (the same tool and arguments) is that task, never a
 * second run of the call.
 */
export async function startMcpTask(
  deps: McpCallDeps,
  run: FrozenRun,
  call: McpCall,
  requestId?: string,
): Promise<McpTaskRow> {
  const toolCallId = await recordMcpCall(deps.pool, {
    sessionId: run.session_id,
    toolCallId: asToolCallId(`mcp-task-${randomUUID()}`),
    kind: 'task',
    callKey: callKeyOf(call),
  });
  await deps.toolCalls.submit(run, toolCallId, gateCall(run, call), requestId);
  await closeMcpCall(deps.pool, run.session_id, toolCallId);
  return mcpTask(deps, run, toolCallId);
}

/** A task of this run, as recorded; another run's task id, or any other id, is not found. */
export async function mcpTask(
  deps: Pick<McpCallDeps, 'pool'>,
  run: FrozenRun,
  taskId: string,
): Promise<McpTaskRow> {
  const row = await findMcpTask(deps.pool, run.session_id, asToolCallId(taskId));
  if (!row) throw new NotFoundError(`task ${taskId}`);
  return row;
}

/** A task's decided answer, waiting for it while `signal` lets (a wait of at most a minute a turn). */
export async function awaitMcpTask(
  deps: McpCallDeps,
  run: FrozenRun,
  taskId: string,
  signal: AbortSignal,
): Promise<DecidedAnswer | undefined> {
  const task = await mcpTask(deps, run, taskId);
  for (;;) {
    const state = await deps.toolCalls.answer(run, task.tool_call_id, 60_000, signal);
    if (state.status === 'decided') return state;
    if (signal.aborted) return undefined;
  }
}

/**
 * Withdraws a task before its decision: its approval is settled as a deny, so the call never
 * runs, and the task reads as cancelled. A task already decided, or still being evaluated (no
 * approval yet to withdraw), is a conflict the client reads.
 */
export async function cancelMcpTask(
  deps: McpCallDeps,
  run: FrozenRun,
  taskId: string,
): Promise<McpTaskRow> {
  const task = await mcpTask(deps, run, taskId);
  const state = stateOf(task);
  if (state.status === 'evaluating') {
    throw new ConflictError(
      `task ${taskId} is still being evaluated; it can be cancelled only while it waits for an approval`,
    );
  }
  if (state.status === 'decided') throw new ConflictError(`task ${taskId} was already decided`);
  const decision = withdrawnDecision() as ReturnType<typeof withdrawnDecision> & {
    answer: { decision: 'deny' };
  };
  const settled = await withdrawTaskApproval(
    deps.pool,
    run.session_id,
    task.tool_call_id,
    decision,
  );
  if (settled.outcome === 'decided') deps.gate.wake(run.session_id, task.tool_call_id);
  else throw new ConflictError(`task ${taskId} was already decided`);
  return mcpTask(deps, run, taskId);
}
