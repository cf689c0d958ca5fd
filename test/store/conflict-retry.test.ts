/**
 * A transaction PostgreSQL aborts so another can go on (a deadlock) committed nothing: it is run
 * again, and both callers get their answer. A conflict met on every attempt is given up after a
 * few, as a moment's unavailability (503), never a 500.
 */
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { test } from 'vitest';
import { problemFor } from '../../src/api/error-mapping.js';
import { retryingConflicts, withTransaction } from '../../src/store/pool.js';
import { useStorePool } from '../support/store-pool.js';

const store = useStorePool(4);

/** Resolves once `count` parties have arrived. */
function barrier(count: number) {
  let arrived = 0;
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return async () => {
    arrived += 1;
    if (arrived === count) open();
    await opened;
  };
}

test('two transactions that deadlock: the one PostgreSQL aborts is run again, and both commit', async () => {
  const [first, second] = [randomInt(1, 2 ** 30), randomInt(1, 2 ** 30) + 2 ** 30];
  const bothHoldOne = barrier(2);
  const attempts = { a: 0, b: 0 };
  const crossing = (name: 'a' | 'b', mine: number, theirs: number) =>
    withTransaction(store.pool, async (tx) => {
      attempts[name] += 1;
      await tx.query('select pg_advisory_xact_lock($1)', [mine]);
      // Only the first attempt waits for the other: the retry takes both in turn.
      if (attempts[name] === 1) await bothHoldOne();
      await tx.query('select pg_advisory_xact_lock($1)', [theirs]);
      return name;
    });

  const answers = await Promise.all([crossing('a', first, second), crossing('b', second, first)]);

  assert.deepEqual(answers, ['a', 'b']);
  // One of the two was aborted as the deadlock's victim and ran once more.
  assert.deepEqual([attempts.a, attempts.b].sort(), [1, 2]);
});

test('a conflict met on every attempt is given up after three, and answered 503', async () => {
  let tries = 0;
  const failure = await retryingConflicts(() => {
    tries += 1;
    return Promise.reject(Object.assign(new Error('deadlock detected'), { code: '40P01' }));
  }).catch((err: unknown) => err);
  assert.equal(tries, 3);
  assert.equal(problemFor(failure).status, 503);
});

test('any other error is not tried again', async () => {
  let tries = 0;
  const failure = await retryingConflicts(() => {
    tries += 1;
    return Promise.reject(Object.assign(new Error('duplicate key'), { code: '23505' }));
  }).catch((err: unknown) => err);
  assert.equal(tries, 1);
  assert.equal(problemFor(failure).status, 500);
});
