import type { ServerResponse } from 'node:http';
import type { Principal } from './auth.js';
import { Problem } from './problem.js';

/**
 * What one caller may hold at once in one API process, each kind counted apart: open waits
 * (`?wait=`), open event streams, writes in flight (tool calls, model admissions and usage
 * reports, approval decisions) and model requests through the gate (`/anthropic/…`). The
 * writes and model caps keep one credential from holding most of the database pool, or the
 * upstream, for everyone else.
 */
export const callerLimits = { waits: 2_000, streams: 500, writes: 64, model: 16 } as const;
export type SlotKind = keyof typeof callerLimits;
type CallerLimits = Record<SlotKind, number>;

const held: Record<SlotKind, string> = {
  waits: 'open waits; close one first',
  streams: 'open event streams; close one first',
  writes: 'writes in flight; send more as they are answered',
  model: 'model requests in flight; send more as they are answered',
};

/** A caller as the caps count them: a run's token, a member, or the operator. */
export function callerKey(principal: Principal): string {
  if (principal.kind === 'runner') return `run:${principal.run.id}`;
  if (principal.kind === 'user') return `member:${principal.member.id}`;
  return 'operator';
}

/**
 * Counts what each caller holds open in this process; beyond the cap a 429 problem. Keys live
 * in a `Map` (ids are data) and leave it when their count reaches zero.
 */
export class CallerSlots {
  private readonly held = new Map<string, number>();

  /** The caps, each the default unless configured (the model cap is: GATE_MODEL_CONCURRENT_PER_RUN). */
  constructor(private readonly limits: CallerLimits = callerLimits) {}

  /** Takes a slot or throws 429; the returned function gives it back (once). */
  take(kind: SlotKind, caller: string): () => void {
    const key = `${kind}:${caller}`;
    const count = this.held.get(key) ?? 0;
    if (count >= this.limits[kind]) {
      throw new Problem(429, `this credential already holds ${this.limits[kind]} ${held[kind]}`);
    }
    this.held.set(key, count + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.held.get(key) ?? 1) - 1;
      if (left <= 0) this.held.delete(key);
      else this.held.set(key, left);
    };
  }

  /**
   * Takes a slot for the life of one response: given back when it has been sent, or when the
   * connection goes (a stream's or a hijacked reply's end included).
   */
  holdFor(response: ServerResponse, kind: SlotKind, caller: string): void {
    const release = this.take(kind, caller);
    response.once('close', release);
  }
}
