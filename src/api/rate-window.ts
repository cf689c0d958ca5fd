/**
 * At most `limit` events per key in any minute, counted in this process: each key keeps the
 * times of its recent events. Keys live in a `Map` (ids are data) and leave it once idle.
 */
export class RateWindow {
  private readonly recent = new Map<string, number[]>();

  constructor(
    private readonly limit: number,
    private readonly windowMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts an event for `key`; when the window is full, the seconds until it frees instead. */
  take(key: string): { ok: true } | { ok: false; retryAfterS: number } {
    const retryAfterS = this.full(key);
    if (retryAfterS !== undefined) return { ok: false, retryAfterS };
    const now = this.now();
    const times = this.recent.get(key) ?? [];
    times.push(now);
    this.recent.set(key, times);
    if (this.recent.size > 10_000) this.forgetIdle(now);
    return { ok: true };
  }

  /** Uncounts `key`'s latest event: one taken for an attempt that turned out no guess. */
  giveBack(key: string): void {
    this.recent.get(key)?.pop();
  }

  /** The seconds until `key`'s window frees when it is full, else undefined; counts nothing. */
  full(key: string): number | undefined {
    const now = this.now();
    const times = (this.recent.get(key) ?? []).filter((t) => t > now - this.windowMs);
    this.recent.set(key, times);
    if (times.length < this.limit) return undefined;
    const oldest = times[0] ?? now;
    return Math.max(1, Math.ceil((oldest + this.windowMs - now) / 1000));
  }

  private forgetIdle(now: number): void {
    for (const [key, times] of this.recent)
      if ((times.at(-1) ?? 0) <= now - this.windowMs) this.recent.delete(key);
  }
}
