/**
 * Turns on a hot row: at most `turnsAtOnce` writes of a key run at once, the others waiting in
 * the order they came, while other keys run beside them; a wait is bounded; an outage refuses
 * those waiting behind it at once; nothing is kept of a key once its writes are done.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, test, vi } from 'vitest';
import { isUnavailableError } from '../../src/store/pool.js';
import {
  inTurn,
  keysInTurn,
  TurnWaitExceeded,
  turnsAtOnce,
  turnWaitMs,
} from '../../src/store/row-turns.js';

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
const named = (prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) => `${prefix}${String(i)}`);

afterEach(() => {
  vi.useRealTimers();
});

describe('turns on a hot row', () => {
  test("a key's writes beyond turnsAtOnce wait, and begin in the order they came as others end; another key's run beside them", async () => {
    const log: string[] = [];
    const names = named('w', turnsAtOnce + 3);
    const writes = names.map((name) => heldWrite(log, name));
    const other = heldWrite(log, 'other');
    const results = writes.map((w) => inTurn('s1', w.work, outage));
    const otherResult = inTurn('s2', other.work, outage);
    await settle();
    const first = names.slice(0, turnsAtOnce).map((n) => `${n} began`);
    assert.deepEqual(log, [...first, 'other began']);
    other.finish();
    // The last is done before its turn: it still waits for one.
    writes.at(-1)!.finish();
    await settle();
    assert.equal(log.length, turnsAtOnce + 2, 'none of the waiting began');
    writes[2]!.finish();
    await settle();
    assert.deepEqual(log.slice(-2), ['w2 ended', `w${String(turnsAtOnce)} began`]);
    for (const w of writes) w.finish();
    assert.deepEqual(await Promise.all(results), names);
    assert.equal(await otherResult, 'other');
    const began = log.filter((line) => line.endsWith('began') && line !== 'other began');
    assert.deepEqual(
      began,
      names.map((n) => `${n} began`),
    );
    assert.equal(keysInTurn(), 0);
  });

  test('a write that fails for its own reasons passes its turn on; one that meets an outage refuses those waiting behind it at once', async () => {
    const log: string[] = [];
    const running = named('r', turnsAtOnce).map((name) => heldWrite(log, name));
    const ran = running.map((w) => inTurn('s', w.work, outage));
    const [a, b, c] = ['a', 'b', 'c'].map((name) => heldWrite(log, name));
    const second = inTurn('s', a!.work, outage);
    running[0]!.finish(new Error('a constraint'));
    await assert.rejects(ran[0]!, /a constraint/);
    await settle();
    assert.equal(log.at(-1), 'a began', 'the turn passed on');

    const third = inTurn('s', b!.work, outage);
    const fourth = inTurn('s', c!.work, outage);
    running[1]!.finish(new Error('outage'));
    await assert.rejects(ran[1]!, /outage/);
    await assert.rejects(third, /outage/);
    await assert.rejects(fourth, /outage/);
    assert.ok(!log.includes('b began') && !log.includes('c began'), 'neither waiting write began');
    for (const w of [...running, a!]) w.finish();
    await Promise.all([...ran.slice(2), second]);
    assert.equal(keysInTurn(), 0);
  });

  test('a write waits for its turn at most turnWaitMs, then is refused as PostgreSQL unavailable; the writes behind it keep their place', async () => {
    vi.useFakeTimers();
    const log: string[] = [];
    const running = named('r', turnsAtOnce).map((name) => heldWrite(log, name));
    const ran = running.map((w) => inTurn('s', w.work, outage));
    const [b, c] = ['b', 'c'].map((name) => heldWrite(log, name));
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
    running[0]!.finish();
    await vi.advanceTimersByTimeAsync(0);
    assert.ok(!log.includes('b began'), 'the refused write never began');
    assert.equal(log.at(-1), 'c began');
    for (const w of [...running, c!]) w.finish();
    await Promise.all([...ran, third]);
    assert.equal(keysInTurn(), 0);
  });
});
