import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { follow, type EventStream, type FollowStep } from '../../src/api/event-stream.js';
import { KeyedWaiters } from '../../src/api/keyed-waiters.js';

/** A stream that records what it was asked to do; nothing is written anywhere. */
function fakeStream() {
  const abort = new AbortController();
  const heartbeats: number[] = [];
  const stream: EventStream = {
    signal: abort.signal,
    send: () => undefined,
    heartbeatIfIdle: () => heartbeats.push(Date.now()),
    end: () => undefined,
  };
  return {
    stream,
    close: () => {
      abort.abort();
    },
    heartbeats,
  };
}

// Far longer than any test here runs: a loop that waits for it has lost a notice.
const idleMs = 600_000;

describe('following a stream', () => {
  test('a notice that lands while reading wakes the next read at once', async () => {
    const waiters = new KeyedWaiters();
    const { stream, close } = fakeStream();
    let reads = 0;
    let readAgain: () => void = () => undefined;
    const secondRead = new Promise<void>((resolve) => {
      readAgain = resolve;
    });
    const followed = follow(
      stream,
      (signal) => waiters.wait('s', idleMs, signal),
      async () => {
        reads += 1;
        // The append commits and its notice arrives after this read took its snapshot.
        if (reads === 1) waiters.wake('s');
        if (reads === 2) readAgain();
        await Promise.resolve();
        return 'caught-up';
      },
    );
    const race = await Promise.race([
      secondRead.then(() => 'read again'),
      new Promise((resolve) => setTimeout(resolve, 2_000, 'still waiting')),
    ]);
    close();
    await followed;
    assert.equal(race, 'read again');
    assert.equal(waiters.size, 0, 'a closed stream leaves no waiter behind');
  });

  test('"more" reads again without waiting, "end" stops, and no waiter is left either way', async () => {
    const waiters = new KeyedWaiters();
    const { stream, heartbeats } = fakeStream();
    const steps: FollowStep[] = ['more', 'more', 'end'];
    let reads = 0;
    await follow(
      stream,
      (signal) => waiters.wait('s', idleMs, signal),
      async () => {
        reads += 1;
        await Promise.resolve();
        return steps.shift() ?? 'caught-up';
      },
    );
    assert.equal(reads, 3);
    assert.deepEqual(heartbeats, [], 'no read was caught up, so nothing waited');
    assert.equal(waiters.size, 0);
  });

  test('a stream closed while waiting ends the loop and leaves no waiter', async () => {
    const waiters = new KeyedWaiters();
    const { stream, close } = fakeStream();
    let nowWaiting: () => void = () => undefined;
    const waiting = new Promise<void>((resolve) => {
      nowWaiting = resolve;
    });
    const followed = follow(
      stream,
      (signal) => waiters.wait('s', idleMs, signal),
      async () => {
        await Promise.resolve();
        setImmediate(nowWaiting);
        return 'caught-up';
      },
    );
    await waiting;
    assert.equal(waiters.size, 1);
    close();
    await followed;
    assert.equal(waiters.size, 0);
  });
});
