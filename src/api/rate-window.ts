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
    const now = this.now();
    const times = (this.recent.get(key) ?? []).filter((t) => t > now - this.windowMs);
    if (times.length >= this.limit) {
      this.recent.set(key, times);
      const oldest = times[0] ?? now;
      return {
        ok: false,
        retryAfterS: Math.max(1, Math.ceil((oldest + this.windowMs - now) / 1000)),
      };
    }
    times.push(now);
    this.recent.set(key, times);
    if (this.recent.size > 10_000) this.forgetIdle(now);
    return { ok: true };
  }

  private forgetIdle(now: number): void {
    for (const [key, times] of this.recent)
      if ((times.at(-1) ?? 0) <= now - this.windowMs) this.recent.delete(key);
  }
}
