import type { SessionId, ToolCallId } from '../../domain/gate/ids.js';
import type { ToolCallState } from '../../domain/gate/vocabulary.js';
import type { Member } from '../../store/members.js';
import type { FrozenRun } from '../../store/runs.js';
import { findToolCall, stateOf } from '../../store/tool-calls.js';
import { awaitRunnerAnswer } from './await-answer.js';
import { explainToolCall } from './explain.js';
import { submitToolCall, type ToolCall, type ToolCallDeps } from './submit.js';

/** The answer a call's record gives now: a brokered call awaiting its result still evaluates. */
export { stateOf as answerOfRecord } from '../../store/tool-calls.js';

/**
 * A tool call's one door, whatever entrance it came in by: the REST routes (which the runner's
 * hooks and its MCP proxy call), the remote MCP endpoint, and any entrance after them ask for a
 * call's answer and wait for it here, and nowhere else reach its record.
 */
export class ToolCalls {
  constructor(private readonly deps: ToolCallDeps) {}

  /** Records the call (idempotent by its ids) and puts it to the gate: its first answer. */
  submit(
    run: FrozenRun,
    toolCallId: ToolCallId,
    call: ToolCall,
    requestId?: string,
  ): Promise<ToolCallState> {
    return submitToolCall(this.deps, run, toolCallId, call, requestId);
  }

  /** The call's answer as recorded, waiting up to `waitMs` for a decision while `signal` lets. */
  answer(
    run: FrozenRun,
    toolCallId: ToolCallId,
    waitMs: number,
    signal: AbortSignal,
  ): Promise<ToolCallState> {
    return awaitRunnerAnswer(this.deps, run, toolCallId, waitMs, signal);
  }

  /** The call's state as recorded now, undefined when the run made no such call. */
  async recorded(run: FrozenRun, toolCallId: ToolCallId): Promise<ToolCallState | undefined> {
    const row = await findToolCall(this.deps.pool, run.session_id, toolCallId);
    return row && stateOf(row);
  }

  /** Each stage's verdict on the call and what it looked at, for an admin or the operator. */
  explain(sessionId: SessionId, toolCallId: ToolCallId, viewer: { member?: Member }) {
    return explainToolCall(this.deps.pool, sessionId, toolCallId, viewer);
  }
}
