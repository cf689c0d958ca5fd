import type { ToolCallId } from '../../domain/gate/ids.js';
import type { GateInput, GateSettings, ToolCallState } from '../../domain/gate/vocabulary.js';
import { digestOf } from '../../domain/ledger/digest.js';
import type { Pool } from '../../store/pool.js';
import type { FrozenRun } from '../../store/runs.js';
import { recordToolCallRequest, stateOf, type ToolCallRow } from '../../store/tool-calls.js';
import type { GateWorkflowClient } from '../../temporal/gate-workflow-client.js';
import { awaitGateAnswer, whileDependenciesAnswer } from './gate-answer.js';
import type { ToolCallNotices } from './await-answer.js';
import { answerEndedGate } from './ended-gate.js';
import { ConflictError } from '../../domain/errors.js';
import type { LocalAnswers } from './local-answers.js';
import { frozenTool } from '../../domain/tools/tools.js';

export interface ToolCallDeps {
  pool: Pool;
  gate: GateWorkflowClient;
  /** Wakes the wait for an eagerly started call's recorded answer. */
  notifications: ToolCallNotices;
  /** Answers this process's own worker records, handed over without a read back. */
  localAnswers?: LocalAnswers;
  /** How long to wait for the gate before asking the runner to send the call again. */
  gateWaitMs: number;
  /** What every call's workflow runs under: its approval re-checks and its stages' window. */
  settings: GateSettings;
}

/** A call as its entrance hands it over. */
export interface ToolCall {
  tool: string;
  arguments: Record<string, unknown>;
  execute: boolean;
  /** The tool's digest as the runner's sandbox serves it now (null: no longer listed), if reported. */
  observed_digest?: string | null;
}

/**
 * Records a call the first time it is seen (with tool.requested). The same ids again find the
 * first record; with a different body they are a conflict.
 */
async function recordRequest(
  pool: Pool,
  run: FrozenRun,
  toolCallId: ToolCallId,
  call: ToolCall,
): Promise<ToolCallRow> {
  const requestDigest = digestOf(call);
  const frozenClass = frozenTool(run.toolset, call.tool)?.class;
  const row = await recordToolCallRequest(pool, {
    sessionId: run.session_id,
    toolCallId,
    runId: run.id,
    tool: call.tool,
    arguments: call.arguments,
    execute: call.execute,
    requestDigest,
    frozen: frozenClass !== undefined,
    awaitsResult: call.execute && frozenClass === 'brokered',
  });
  if (row.request_digest !== requestDigest) {
    throw new ConflictError(`tool call ${toolCallId} was already made with a different request`);
  }
  return row;
}

/**
 * A runner's tool call: recorded, then decided by the gate workflow (started, or re-attached to
 * on a retry). A recorded final decision answers at once; a gate that closed without one (an
 * operator terminated it) is a deny, recorded once, so sending the call again answers at once
 * instead of "send it again" forever.
 */
export async function submitToolCall(
  deps: ToolCallDeps,
  run: FrozenRun,
  toolCallId: ToolCallId,
  call: ToolCall,
  requestId?: string,
): Promise<ToolCallState> {
  const row = await recordRequest(deps.pool, run, toolCallId, call);
  const recorded = stateOf(row);
  if (recorded.status === 'decided') return recorded;
  const input: GateInput = {
    call: { run_id: run.id, session_id: run.session_id, tool_call_id: toolCallId, ...call },
    settings: deps.settings,
  };
  const answer = await decide(deps, input, requestId);
  if (answer !== 'closed') return answer;
  // A closed gate is never started again: its decision is in the record, or is recorded now.
  const ending = await deps.gate.ending(run.session_id, toolCallId);
  return answerEndedGate(deps, run, toolCallId, ending ?? 'ended');
}

/**
 * Eagerly, when this process hosts a worker: the start hands it the first task and the answer
 * is read from the record as soon as it is written. A brokered execution's result lives only in
 * the workflow's answer until recorded, so it goes, like every call without a hosted worker,
 * through update-with-start. Either way the wait ends in a 503 as soon as PostgreSQL or Temporal
 * stops answering: the call sent again re-attaches.
 */
function decide(
  deps: ToolCallDeps,
  input: GateInput,
  requestId: string | undefined,
): Promise<ToolCallState | 'closed'> {
  const request = input.call;
  return whileDependenciesAnswer(deps, async (abandoned) => {
    if (request.execute || !deps.gate.startsEagerly)
      return deps.gate.ask(input, deps.gateWaitMs, requestId, abandoned);
    const started = Date.now();
    const left = () => Math.max(0, deps.gateWaitMs - (Date.now() - started));
    const local = deps.localAnswers?.expect(request.session_id, request.tool_call_id);
    try {
      const start = await deps.gate.start(input, deps.gateWaitMs, requestId);
      if (start === 'closed') return 'closed';
      // Started here: the answer is recorded in this process and handed over. A task that moved
      // elsewhere (this worker stopping), or a record slow to take it, is read from the record.
      const answer =
        start === 'eager' ? await local?.within(Math.min(left(), localWaitMs)) : undefined;
      if (answer) return answer;
    } finally {
      local?.cancel();
    }
    return awaitGateAnswer(deps, request.session_id, request.tool_call_id, left(), abandoned);
  });
}

/** How long an eagerly started call waits for its answer in this process before reading. */
const localWaitMs = 1000;
