/**
 * Turns on a hot row: a key's writes run one at a time, in the order they came, while other keys
 * run beside them; a wait is bounded; an outage refuses those waiting behind it at once; nothing
 * is kept of a key once its writes are done.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, test, vi } from 'vitest';
import { isUnavailableError } from '../../src/store/pool.js';
import { inTurn, keysInTurn, TurnWaitExceeded, turnWaitMs } from '../../src/store/row-turns.js';

const outage = (err: unknown) => err instanceof Error && err.message === 'outage';

/** A write that runs until `finish` is called, noting when it began. */
function heldWrite(log: string[], name: string) {
  let finish!: (err?: Error) => void;
  const done = new Promise<void>((resolve, reject) => {
    finish = (err) => {
      if (err) reject(err);
      else resolve();
    };
  });
  const work = async () => {
    log.push(`${name} began`);
    await done;
    log.push(`${name} ended`);
    return name;
  };
  return {
    work,
    finish: (err?: Error) => {
      finish(err);
    },
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

afterEach(() => {
  vi.useRealTimers();
});

describe('turns on a hot row', () => {
  test("one key's writes run one at a time in the order they came; another key's run beside them", async () => {
    const log: string[] = [];
    const [a, b, c, other] = ['a', 'b', 'c', 'other'].map((name) => heldWrite(log, name));
    const results = [
      inTurn('s1', a!.work, outage),
      inTurn('s1', b!.work, outage),
      inTurn('s1', c!.work, outage),
      inTurn('s2', other!.work, outage),
    ];
    await settle();
    assert.deepEqual(log, ['a began', 'other began']);
    other!.finish();
    c!.finish(); // c is done before its turn: it still waits for b.
    await settle();
    assert.deepEqual(log, ['a began', 'other began', 'other ended']);
    a!.finish();
    await settle();
    assert.deepEqual(log.slice(3), ['a ended', 'b began']);
    b!.finish();
    assert.deepEqual(await Promise.all(results), ['a', 'b', 'c', 'other']);
    assert.deepEqual(log.slice(5), ['b ended', 'c began', 'c ended']);
    assert.equal(keysInTurn(), 0);
  });

  test('a write that fails for its own reasons passes the turn on; one that meets an outage refuses those waiting behind it at once', async () => {
    const log: string[] = [];
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((name) => heldWrite(log, name));
    const first = inTurn('s', a!.work, outage);
    const second = inTurn('s', b!.work, outage);
    a!.finish(new Error('a constraint'));
    await assert.rejects(first, /a constraint/);
    await settle();
    assert.deepEqual(log, ['a began', 'b began']);

    const third = inTurn('s', c!.work, outage);
    const fourth = inTurn('s', d!.work, outage);
    b!.finish(new Error('outage'));
    await assert.rejects(second, /outage/);
    await assert.rejects(third, /outage/);
    await assert.rejects(fourth, /outage/);
    assert.deepEqual(log, ['a began', 'b began'], 'neither waiting write began');
    assert.equal(keysInTurn(), 0);
  });

  test('a write waits for its turn at most turnWaitMs, then is refused as PostgreSQL unavailable; the writes behind it keep their place', async () => {
    vi.useFakeTimers();
    const log: string[] = [];
    const [a, b, c] = ['a', 'b', 'c'].map((name) => heldWrite(log, name));
    const first = inTurn('s', a!.work, outage);
    const second = inTurn('s', b!.work, outage);
    const refused = assert.rejects(second, (err: unknown) => {
      assert.ok(err instanceof TurnWaitExceeded);
      assert.ok(isUnavailableError(err), 'the API answers it 503');
      return true;
    });
    await vi.advanceTimersByTimeAsync(turnWaitMs / 2);
    const third = inTurn('s', c!.work, outage);
    await vi.advanceTimersByTimeAsync(turnWaitMs / 2);
    await refused;
    a!.finish();
    await vi.advanceTimersByTimeAsync(0);
    assert.deepEqual(log, ['a began', 'a ended', 'c began'], 'the refused write never began');
    c!.finish();
    assert.equal(await first, 'a');
    assert.equal(await third, 'c');
    assert.equal(keysInTurn(), 0);
  });
});
