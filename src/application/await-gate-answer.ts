import type { SessionId, ToolCallId } from '../domain/gate/ids.js';
import type { ToolCallState } from '../domain/gate/vocabulary.js';
import type { Pool } from '../store/pool.js';
import { findToolCall, stateOf } from '../store/tool-calls.js';
import { UnavailableError } from './errors.js';

/** Wakes a reader when a call's recorded answer changes (LISTEN/NOTIFY in the API). */
export interface ToolCallNotices {
  waitForToolCall(
    sessionId: string,
    toolCallId: string,
    ms: number,
    signal: AbortSignal,
  ): Promise<void>;
}

/**
 * A notice can be lost (the listening connection dropped), and the shared re-check only looks
 * for decided calls: while the gate evaluates (milliseconds, at most the gate's wait), the record
 * is also read this often.
 */
const recheckMs = 1000;

/**
 * The gate's first answer to a call as recorded (decided, or paused on a person), waiting up to
 * `waitMs` for it. Every answer is appended to the session's stream in the same transaction as
 * the record, so each append wakes a read; the listener is set before the read, so none is missed.
 */
export async function awaitGateAnswer(
  deps: { pool: Pool; notifications: ToolCallNotices },
  sessionId: SessionId,
  toolCallId: ToolCallId,
  waitMs: number,
): Promise<ToolCallState> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const stop = new AbortController();
    const changed = deps.notifications.waitForToolCall(
      sessionId,
      toolCallId,
      Math.max(0, Math.min(recheckMs, deadline - Date.now())),
      stop.signal,
    );
    const row = await findToolCall(deps.pool, sessionId, toolCallId);
    const state = row && stateOf(row);
    if (state && state.status !== 'evaluating') {
      stop.abort();
      return state;
    }
    if (Date.now() >= deadline) {
      stop.abort();
      throw new UnavailableError('the gate is still evaluating this call; send it again');
    }
    await changed;
  }
}
