import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { CallerSlots, callerLimits } from '../../src/api/caller-slots.js';
import { KeyedWaiters } from '../../src/api/keyed-waiters.js';

const never = new AbortController().signal;
const pending = (p: Promise<void>) =>
  Promise.race([
    p.then(() => 'woken'),
    new Promise((r) =>
      setImmediate(() => {
        r('waiting');
      }),
    ),
  ]);

describe('waking waiters by key', () => {
  for (const key of ['error', '__proto__', 'constructor', 'toString', 'then', 'newListener']) {
    test(`the key "${key}" is only a name`, async () => {
      const waiters = new KeyedWaiters();
      const mine = waiters.wait(key, 60_000, never);
      const other = waiters.wait('other', 60_000, never);
      waiters.wake(key);
      assert.equal(await pending(mine), 'woken');
      assert.equal(await pending(other), 'waiting');
      waiters.wakeAll();
      await other;
      assert.equal(waiters.size, 0);
      assert.deepEqual(waiters.keys(), []);
    });
  }

  test('a re-check wakes only waiters behind the head they wait past', async () => {
    const waiters = new KeyedWaiters();
    const behind = waiters.wait('s', 60_000, never, 3);
    const current = waiters.wait('s', 60_000, never, 5);
    waiters.wake('s', 5);
    assert.equal(await pending(behind), 'woken');
    assert.equal(await pending(current), 'waiting');
    waiters.wake('s');
    await current;
  });

  test('a timeout or an abort ends a wait and leaves nothing behind', async () => {
    const waiters = new KeyedWaiters();
    const abort = new AbortController();
    const aborted = waiters.wait('k', 60_000, abort.signal);
    const timed = waiters.wait('k', 1, never);
    abort.abort();
    await Promise.all([aborted, timed]);
    assert.equal(waiters.size, 0);
  });
});

describe('what one caller may hold open', () => {
  test('past the cap a 429, per caller and per kind; a slot given back is free again', () => {
    const slots = new CallerSlots();
    const held = Array.from({ length: callerLimits.streams }, () => slots.take('streams', 'run:a'));
    assert.throws(() => slots.take('streams', 'run:a'), { status: 429 });
    slots.take('streams', 'run:b')();
    slots.take('waits', 'run:a')();
    held[0]?.();
    held[0]?.(); // twice is once
    slots.take('streams', 'run:a');
    assert.throws(() => slots.take('streams', 'run:a'), { status: 429 });
  });
});
