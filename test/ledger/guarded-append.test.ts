import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'vitest';
import { ChainVerifier } from '../../src/domain/ledger/hash-chain.js';
import {
  appendEvent,
  appendGuarded,
  readChainedEvents,
  readStreamHead,
  type GuardedChange,
} from '../../src/store/ledger.js';
import { withTransaction } from '../../src/store/pool.js';
import { useStorePool } from '../support/store-pool.js';
import { requested } from './support.js';

const store = useStorePool(60);

/** A change that touches no table: it holds exactly when the head is as guessed. */
const noOp: GuardedChange = {
  sql: 'select 1 as done where exists (select 1 from head)',
  values: [],
};
const matchesNothing: GuardedChange = {
  sql: 'select 1 as done where false and exists (select 1 from head)',
  values: [],
};

async function verified(stream: string) {
  const verifier = new ChainVerifier();
  for (const event of await readChainedEvents(store.pool, stream, 0, 1000)) {
    assert.ok(verifier.check({ ...event, stream_id: stream }), `seq ${String(event.seq)} breaks`);
  }
  return verifier.verdict(await readStreamHead(store.pool, stream));
}

describe('guarded appends: a state change and its event in one statement', () => {
  test('they chain on from where appendEvent left the head, and the chain verifies', async () => {
    const stream = `stream-${randomUUID()}`;
    await withTransaction(store.pool, (tx) => appendEvent(tx, stream, requested(1)));
    for (const n of [2, 3]) {
      const guarded = await appendGuarded(store.pool, stream, noOp, requested(n));
      assert.equal(guarded.outcome, 'changed');
    }
    const verdict = await verified(stream);
    assert.ok(verdict.ok);
    assert.equal(verdict.events, 3);
  });

  test('a head guessed wrong (an append rolled back) changes nothing; it is read back and the event lands once', async () => {
    const stream = `stream-${randomUUID()}`;
    await withTransaction(store.pool, (tx) => appendEvent(tx, stream, requested(1)));
    await assert.rejects(
      withTransaction(store.pool, async (tx) => {
        await appendEvent(tx, stream, requested(2));
        throw new Error('rolled back');
      }),
    );
    const guarded = await appendGuarded(store.pool, stream, noOp, requested(3));
    assert.equal(guarded.outcome, 'changed');
    const verdict = await verified(stream);
    assert.ok(verdict.ok);
    assert.equal(verdict.events, 2);
  });

  test('a change that matches nothing appends nothing', async () => {
    const stream = `stream-${randomUUID()}`;
    await withTransaction(store.pool, (tx) => appendEvent(tx, stream, requested(1)));
    const guarded = await appendGuarded(store.pool, stream, matchesNothing, requested(2));
    assert.equal(guarded.outcome, 'unchanged');
    assert.equal((await verified(stream)).events, 1);
  });

  test('a stream with no head yet is left to appendEvent', async () => {
    const stream = `stream-${randomUUID()}`;
    const guarded = await appendGuarded(store.pool, stream, noOp, requested(1));
    assert.equal(guarded.outcome, 'head unknown');
    assert.equal(await readStreamHead(store.pool, stream), undefined);
  });

  test('guarded and locked appends racing on one stream: each event lands once, seq gapless', async () => {
    const stream = `stream-${randomUUID()}`;
    await withTransaction(store.pool, (tx) => appendEvent(tx, stream, requested(0)));
    const outcomes = await Promise.all(
      Array.from({ length: 12 }, async (_, i) => {
        const event = requested(i + 1);
        if (i % 3 === 0) {
          await withTransaction(store.pool, (tx) => appendEvent(tx, stream, event));
          return 'locked';
        }
        const guarded = await appendGuarded(store.pool, stream, noOp, event);
        if (guarded.outcome === 'head unknown')
          await withTransaction(store.pool, (tx) => appendEvent(tx, stream, event));
        return guarded.outcome;
      }),
    );
    assert.ok(outcomes.every((outcome) => outcome !== 'unchanged'));
    const verdict = await verified(stream);
    assert.ok(verdict.ok);
    assert.equal(verdict.events, 13);
  });
});
