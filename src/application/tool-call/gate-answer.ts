import { setTimeout as sleep } from 'node:timers/promises';
import type { SessionId, ToolCallId } from '../../domain/gate/ids.js';
import type { ToolCallState } from '../../domain/gate/vocabulary.js';
import { databaseAnswers, type Pool } from '../../store/pool.js';
import { awaitToolCall, type ToolCallNotices } from './await-answer.js';
import { GateStillEvaluatingError } from '../../domain/errors.js';

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
  abandoned: AbortSignal = new AbortController().signal,
): Promise<ToolCallState> {
  const state = await awaitToolCall(
    deps.pool,
    sessionId,
    toolCallId,
    waitMs,
    deps.notifications,
    abandoned,
    { answered: (answer) => answer.status !== 'evaluating', readAgainMs: recheckMs },
  );
  if (state.status === 'evaluating') {
    throw new GateStillEvaluatingError();
  }
  return state;
}

/** What the watch over a waiting call asks of Temporal: whether it answers at all. */
interface TemporalReach {
  reachable(): Promise<void>;
}

/** How often a call waiting on its workflow checks that PostgreSQL and Temporal answer. */
const dependencyWatchMs = 1000;

/**
 * What `wait` answers, as long as the gate's dependencies answer: the call's workflow moves only
 * while Temporal does, and its stages only while PostgreSQL does (through their window), so while
 * either is away or frozen the runner is told 503 within that one's bound rather than at the end
 * of the gate's wait. `wait` is told when it is abandoned, and stops.
 */
export async function whileDependenciesAnswer<T>(
  deps: { pool: Pool; gate: TemporalReach },
  wait: (abandoned: AbortSignal) => Promise<T>,
): Promise<T> {
  const settled = new AbortController();
  const waiting = wait(settled.signal);
  const watch = (async (): Promise<never> => {
    for (;;) {
      await sleep(dependencyWatchMs, undefined, { signal: settled.signal });
      await Promise.all([databaseAnswers(deps.pool), deps.gate.reachable()]);
    }
  })();
  // Whichever loses the race is stopped, and let go quietly.
  watch.catch(() => undefined);
  waiting.catch(() => undefined);
  try {
    return await Promise.race([waiting, watch]);
  } finally {
    settled.abort();
  }
}
