import type { Principal } from './auth.js';
import { Problem } from './problem.js';

/** What one caller may hold open at once: waits (`?wait=`) and event streams, counted apart. */
export const callerLimits = { waits: 2_000, streams: 500 } as const;
export type SlotKind = keyof typeof callerLimits;

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

  /** Takes a slot or throws 429; the returned function gives it back (once). */
  take(kind: SlotKind, caller: string): () => void {
    const key = `${kind}:${caller}`;
    const count = this.held.get(key) ?? 0;
    if (count >= callerLimits[kind]) {
      throw new Problem(
        429,
        `this credential already holds ${callerLimits[kind]} open ${kind === 'waits' ? 'waits' : 'event streams'}; close one first`,
      );
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
}
