import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { follow, type EventStream, type FollowStep } from '../../src/api/event-stream.js';
import { KeyedWaiters } from '../../src/api/keyed-waiters.js';

// Far longer than any test here runs: a loop that waits for it has lost a notice.
const idleMs = 600_000;

/**
 * Follows a stream that records what it was asked to do (nothing is written anywhere), woken by
 * key `s` of its own waiters.
 */
function following(read: (waiters: KeyedWaiters) => Promise<FollowStep>) {
  const waiters = new KeyedWaiters();
  const abort = new AbortController();
  const heartbeats: number[] = [];
  const stream: EventStream = {
    signal: abort.signal,
    send: () => Promise.resolve(),
    heartbeatIfIdle: () => {
      heartbeats.push(Date.now());
      return Promise.resolve();
    },
    end: () => undefined,
  };
  const done = follow(
    stream,
    (signal) => waiters.wait('s', idleMs, signal),
    () => read(waiters),
  );
  const close = () => {
    abort.abort();
  };
  return { waiters, heartbeats, done, close };
}

/** A promise and what settles it. */
function flag() {
  let raise: () => void = () => undefined;
  const raised = new Promise<void>((resolve) => {
    raise = resolve;
  });
  return { raised, raise };
}

describe('following a stream', () => {
  test('a notice that lands while reading wakes the next read at once', async () => {
    const secondRead = flag();
    let reads = 0;
    const { waiters, done, close } = following(async (waiters) => {
      reads += 1;
      // The append commits and its notice arrives after this read took its snapshot.
      if (reads === 1) waiters.wake('s');
      if (reads === 2) secondRead.raise();
      await Promise.resolve();
      return 'caught-up';
    });
    const race = await Promise.race([
      secondRead.raised.then(() => 'read again'),
      new Promise((resolve) => setTimeout(resolve, 2_000, 'still waiting')),
    ]);
    close();
    await done;
    assert.equal(race, 'read again');
    assert.equal(waiters.size, 0, 'a closed stream leaves no waiter behind');
  });

  test('"more" reads again without waiting, "end" stops, and no waiter is left either way', async () => {
    const steps: FollowStep[] = ['more', 'more', 'end'];
    let reads = 0;
    const { waiters, heartbeats, done } = following(async () => {
      reads += 1;
      await Promise.resolve();
      return steps.shift() ?? 'caught-up';
    });
    await done;
    assert.equal(reads, 3);
    assert.deepEqual(heartbeats, [], 'no read was caught up, so nothing waited');
    assert.equal(waiters.size, 0);
  });

  test('a stream closed while waiting ends the loop and leaves no waiter', async () => {
    const waiting = flag();
    const { waiters, done, close } = following(async () => {
      await Promise.resolve();
      setImmediate(waiting.raise);
      return 'caught-up';
    });
    await waiting.raised;
    assert.equal(waiters.size, 1);
    close();
    await done;
    assert.equal(waiters.size, 0);
  });
});
