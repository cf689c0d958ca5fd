import { isIPv6 } from 'node:net';

/**
 * The key a client address is limited by: an IPv6 client by its /64 (one host usually holds a
 * whole /64), an IPv4 one (or an IPv4-mapped IPv6 one) by its address.
 */
export function clientKey(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped?.[1]) return mapped[1];
  if (!isIPv6(ip)) return ip;
  const [head = '', tail = ''] = (ip.split('%')[0] ?? '').split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === '' ? [] : tail.split(':');
  const groups = ip.includes('::')
    ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right]
    : left;
  return `${groups
    .slice(0, 4)
    .map((group) => parseInt(group, 16).toString(16))
    .join(':')}::/64`;
}

/**
 * At most `limit` events per key in any minute, counted in this process: each key keeps the
 * times of its recent events. Keys live in a `Map` (ids are data) in the order they were last
 * used; past `maxKeys` the least recently used leaves, so each take costs O(1).
 */
export class RateWindow {
  private readonly recent = new Map<string, number[]>();

  constructor(
    private readonly limit: number,
    private readonly windowMs = 60_000,
    private readonly now: () => number = Date.now,
    private readonly maxKeys = 100_000,
  ) {}

  /** Counts an event for `key`; when the window is full, the seconds until it frees instead. */
  take(key: string): { ok: true } | { ok: false; retryAfterS: number } {
    const now = this.now();
    const times = (this.recent.get(key) ?? []).filter((t) => t > now - this.windowMs);
    // Deleted and set again: the key moves to the end, the most recently used.
    this.recent.delete(key);
    this.recent.set(key, times);
    if (times.length >= this.limit) {
      const oldest = times[0] ?? now;
      return {
        ok: false,
        retryAfterS: Math.max(1, Math.ceil((oldest + this.windowMs - now) / 1000)),
      };
    }
    times.push(now);
    if (this.recent.size > this.maxKeys) {
      const first = this.recent.keys().next();
      if (!first.done) this.recent.delete(first.value);
    }
    return { ok: true };
  }

  /** Uncounts `key`'s latest event: one taken for an attempt that turned out no guess. */
  giveBack(key: string): void {
    this.recent.get(key)?.pop();
  }

  /** How many keys are held now. */
  get size(): number {
    return this.recent.size;
  }
}
