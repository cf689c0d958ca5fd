import type { SessionId, ToolCallId } from '../domain/gate/ids.js';
import type { ToolCallState } from '../domain/gate/vocabulary.js';
import type { Pool } from '../store/pool.js';
import { awaitToolCall } from './await-tool-call.js';
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
 * `waitMs` for it; the record is written before any notice, so the runner acts only on what is
 * durable.
 */
export async function awaitGateAnswer(
  deps: { pool: Pool; notifications: ToolCallNotices },
  sessionId: SessionId,
  toolCallId: ToolCallId,
  waitMs: number,
): Promise<ToolCallState> {
  const state = await awaitToolCall(
    deps.pool,
    sessionId,
    toolCallId,
    waitMs,
    (ms, signal) =>
      deps.notifications.waitForToolCall(sessionId, toolCallId, Math.min(recheckMs, ms), signal),
    new AbortController().signal,
    { answered: (answer) => answer.status !== 'evaluating' },
  );
  if (state.status === 'evaluating') {
    throw new UnavailableError('the gate is still evaluating this call; send it again');
  }
  return state;
}
