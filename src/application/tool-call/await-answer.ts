import { setTimeout as sleep } from 'node:timers/promises';
import type { SessionId, ToolCallId } from '../../domain/gate/ids.js';
import type { DecidedAnswer, ToolCallState } from '../../domain/gate/vocabulary.js';
import type { Pool } from '../../store/pool.js';
import type { FrozenRun } from '../../store/runs.js';
import { findToolCall, stateOf } from '../../store/tool-calls.js';
import { answerIfGateEnded, type EndedGateDeps } from './ended-gate.js';
import { NotFoundError } from '../../domain/errors.js';

/** Wakes a reader when a call's recorded answer changes (LISTEN/NOTIFY in the API). */
export interface ToolCallNotices {
  /** Changes to the call's answer notify for the next `ms` at least; read again after it. */
  watchToolCall(sessionId: string, toolCallId: string, ms: number): Promise<void>;
  /** Resolves when the call's record may have changed, after `ms`, or when `signal` aborts. */
  waitForToolCall(
    sessionId: string,
    toolCallId: string,
    ms: number,
    signal: AbortSignal,
  ): Promise<void>;
}

/** Whether a call's recorded state is the one waited for: by default, decided. */
type AnsweredWhen = (state: ToolCallState) => boolean;

const decided: AnsweredWhen = (state) => state.status === 'decided';

interface AwaitOptions {
  /** Whether the recorded state is the one waited for: by default, decided. */
  answered?: AnsweredWhen;
  /** Told once when the first read finds the call not answered yet (so a wait begins). */
  onUnanswered?: () => void;
  /** The record is read again at least this often, notice or not. */
  readAgainMs?: number;
}

/**
 * A call's state as recorded, waiting up to `waitMs` for a pending call to be decided. The
 * record is read again only when `notices` say it may have changed (a notice from PostgreSQL),
 * or every `readAgainMs`. The wait ends early when `signal` says the caller went away.
 */
export async function awaitToolCall(
  pool: Pool,
  sessionId: SessionId,
  toolCallId: ToolCallId,
  waitMs: number,
  notices: ToolCallNotices,
  signal: AbortSignal,
  { answered = decided, onUnanswered, readAgainMs = Infinity }: AwaitOptions = {},
): Promise<ToolCallState> {
  const deadline = Date.now() + waitMs;
  let told = false;
  let watched = false;
  for (;;) {
    // Listen before reading, so a decision committed in between still wakes this wait.
    const round = new AbortController();
    const endRound = () => {
      round.abort();
    };
    signal.addEventListener('abort', endRound);
    const woken = notices.waitForToolCall(
      sessionId,
      toolCallId,
      Math.min(readAgainMs, Math.max(0, deadline - Date.now())),
      round.signal,
    );
    try {
      const row = await findToolCall(pool, sessionId, toolCallId);
      if (!row) throw new NotFoundError(`tool call ${toolCallId}`);
      const state = stateOf(row);
      if (!told && !answered(state)) onUnanswered?.();
      told = true;
      if (answered(state) || Date.now() >= deadline || signal.aborted) return state;
      if (!watched) {
        // Watched once a wait begins, then read again: an answer written after the watch
        // notifies, one written before it is found by that read (see watchToolCall). A writer
        // holding the call's row holds the watch until it commits; the wait's bound and its
        // caller's hang-up still end the wait (the next round reads once more and returns).
        const watch = await Promise.race([
          notices.watchToolCall(sessionId, toolCallId, deadline - Date.now()).then(
            () => 'watched' as const,
            () => 'failed' as const,
          ),
          sleep(Math.max(0, deadline - Date.now()), 'ended' as const, {
            signal: round.signal,
          }).catch(() => 'ended' as const),
        ]);
        watched = watch === 'watched';
        // A watch that failed (its statement's timeout behind a writer) wakes nothing: this round
        // waits for the shared re-check, the deadline or the hang-up, then reads and watches again.
        if (watch === 'failed') await woken;
        continue;
      }
      // Woken, timed out or hung up: the next round reads again and returns on the last two.
      await woken;
    } finally {
      signal.removeEventListener('abort', endRound);
      endRound();
    }
  }
}

/**
 * A runner's wait on its call (`GET …?wait=`): the state as recorded, waiting up to `waitMs` for
 * a decision. A gate that closed without deciding (terminated by an operator while the call
 * waited on a person) would leave its runner waiting forever, so for an undecided call Temporal
 * is asked alongside the wait (a deny recorded then wakes it), and again when the wait ends
 * undecided; such a call answers with the deny it records.
 */
export async function awaitRunnerAnswer(
  deps: EndedGateDeps & { notifications: ToolCallNotices },
  run: FrozenRun,
  toolCallId: ToolCallId,
  waitMs: number,
  signal: AbortSignal,
): Promise<ToolCallState> {
  const check: { ended?: Promise<DecidedAnswer | undefined> } = {};
  const state = await awaitToolCall(
    deps.pool,
    run.session_id,
    toolCallId,
    waitMs,
    deps.notifications,
    signal,
    {
      onUnanswered: () => {
        check.ended = answerIfGateEnded(deps, run, toolCallId);
      },
    },
  );
  if (state.status === 'decided' || !check.ended) return state;
  const endedBefore = await check.ended;
  if (endedBefore) return endedBefore;
  if (waitMs === 0) return state;
  return (await answerIfGateEnded(deps, run, toolCallId)) ?? state;
}
