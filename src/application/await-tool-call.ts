import type { SessionId, ToolCallId } from '../domain/gate/ids.js';
import type { ToolCallState } from '../domain/gate/vocabulary.js';
import type { Pool } from '../store/pool.js';
import { findToolCall, stateOf } from '../store/tool-calls.js';
import { NotFoundError } from './errors.js';

const pollMs = 100;

/**
 * A call's state as recorded, waiting up to `waitMs` for a pending call to be decided. The wait
 * ends early when `gaveUp()` says the caller went away: nobody is left to answer.
 */
export async function awaitToolCall(
  pool: Pool,
  sessionId: SessionId,
  toolCallId: ToolCallId,
  waitMs: number,
  gaveUp: () => boolean,
): Promise<ToolCallState> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const row = await findToolCall(pool, sessionId, toolCallId);
    if (!row) throw new NotFoundError(`tool call ${toolCallId}`);
    const state = stateOf(row);
    if (state.status === 'decided' || Date.now() >= deadline || gaveUp()) return state;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
