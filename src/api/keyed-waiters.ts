/**
 * In-process fan-out of wake-ups, keyed by ids that come from outside. A `Map` of sets, never an
 * `EventEmitter` or a plain object: no key (`error`, `__proto__`, `constructor`, …) means anything
 * to the process.
 */
interface Waiter {
  /** What the waiter has seen (a ledger cursor); a re-check wakes it only for something newer. */
  since: number;
  wake: () => void;
}

export class KeyedWaiters {
  private readonly byKey = new Map<string, Set<Waiter>>();

  /** Resolves when `key` is woken, after `ms`, or when `signal` aborts, whichever is first. */
  wait(key: string, ms: number, signal: AbortSignal, since = 0): Promise<void> {
    return new Promise((resolve) => {
      if (signal.aborted) {
        resolve();
        return;
      }
      const waiter: Waiter = {
        since,
        wake: () => {
          clearTimeout(timer);
          signal.removeEventListener('abort', waiter.wake);
          this.remove(key, waiter);
          resolve();
        },
      };
      const timer = setTimeout(waiter.wake, ms);
      signal.addEventListener('abort', waiter.wake);
      const set = this.byKey.get(key) ?? new Set<Waiter>();
      set.add(waiter);
      this.byKey.set(key, set);
    });
  }

  /** Wakes every waiter of `key` whose cursor is below `upTo` (all of them without one). */
  wake(key: string, upTo = Number.POSITIVE_INFINITY): void {
    for (const waiter of [...(this.byKey.get(key) ?? [])]) if (waiter.since < upTo) waiter.wake();
  }

  wakeAll(): void {
    for (const key of [...this.byKey.keys()]) this.wake(key);
  }

  /** The keys someone waits on now. */
  keys(): string[] {
    return [...this.byKey.keys()];
  }

  get size(): number {
    let n = 0;
    for (const set of this.byKey.values()) n += set.size;
    return n;
  }

  private remove(key: string, waiter: Waiter): void {
    const set = this.byKey.get(key);
    if (!set) return;
    set.delete(waiter);
    if (set.size === 0) this.byKey.delete(key);
  }
}
