import { setTimeout as sleep } from 'node:timers/promises';

/**
 * What one API call may take before a test calls it hung: twice the gate's own wait for a
 * decision (past which the API answers 503), so a slow shared machine never trips it.
 */
export const hungCallMs = 60_000;

/** `work`'s result, or a failure naming `what` if it has not finished within `ms`. */
export async function within<T>(ms: number, what: string, work: Promise<T>): Promise<T> {
  const bound = new AbortController();
  const late = sleep(ms, undefined, { signal: bound.signal }).then(() => {
    throw new Error(`${what}: not done within ${ms} ms`);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    bound.abort();
    await late.catch(() => undefined);
  }
}
