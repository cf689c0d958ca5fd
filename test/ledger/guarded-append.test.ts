import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, test } from 'vitest';
import { ChainVerifier } from '../../src/domain/ledger/hash-chain.js';
import {
  appendEvent,
  appendGuarded,
  readChainedEvents,
  readStreamHead,
  type GuardedChange,
} from '../../src/store/ledger.js';
import { payload, redact } from '../../src/domain/ledger/redaction.js';
import { createPool, withTransaction } from '../../src/store/pool.js';
import { watchStatements } from '../support/statements.js';
import { testConfig } from '../support/env.js';
import { useStorePool } from '../support/store-pool.js';
import { requested } from './support.js';

const store = useStorePool(60);

/** A change that touches no table: it holds whenever the head is locked. */
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

  test('an append rolled back leaves the head as it was: the next one chains from it, and the event lands once', async () => {
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

  test('each append is one statement that chains after the head the lock finds, whoever moved it; text of any script hashes as the verifier reads it', async () => {
    const stream = `stream-${randomUUID()}`;
    const other = createPool(testConfig().databaseUrl, { max: 1 });
    try {
      await withTransaction(store.pool, (tx) => appendEvent(tx, stream, requested(1)));
      const sent = watchStatements(store.pool);
      for (const n of [2, 3, 4]) {
        // Another process moves the head between this one's appends.
        await withTransaction(other, (tx) => appendEvent(tx, stream, requested(n * 10)));
        assert.equal(
          (await appendGuarded(store.pool, stream, noOp, requested(n))).outcome,
          'changed',
        );
      }
      assert.equal(sent.length, 3, sent.join('\n---\n'));
      const withText = redact('tool.requested', {
        tool_call_id: 'call-é€😀',
        tool: 'Lire «ceci»',
        execute: false,
        arguments: payload({ note: 'ß ∑ 日本 \u0000 "quoted" \\ back' }),
      });
      assert.equal((await appendGuarded(store.pool, stream, noOp, withText)).outcome, 'changed');
      const verdict = await verified(stream);
      assert.ok(verdict.ok, JSON.stringify(verdict));
      assert.equal(verdict.events, 8);
    } finally {
      await other.end();
    }
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

  test('guarded and locked appends racing on one stream: each guarded one in its one statement, each event once, seq gapless, and the times follow the seq', async () => {
    const stream = `stream-${randomUUID()}`;
    await withTransaction(store.pool, (tx) => appendEvent(tx, stream, requested(0)));
    const outcomes = await Promise.all(
      Array.from({ length: 24 }, async (_, i) => {
        const event = requested(i + 1);
        if (i % 3 === 0) {
          // Holds the head a while after its append: the writers behind it wait on the lock.
          await withTransaction(store.pool, async (tx) => {
            await appendEvent(tx, stream, event);
            await sleep(20);
          });
          return 'locked';
        }
        return (await appendGuarded(store.pool, stream, noOp, event)).outcome;
      }),
    );
    assert.deepEqual(
      outcomes.filter((outcome) => outcome !== 'locked'),
      Array.from({ length: 16 }, () => 'changed'),
    );
    const verdict = await verified(stream);
    assert.ok(verdict.ok);
    assert.equal(verdict.events, 25);
    // Each event is stamped once it holds the head: no event's time is before the one it follows.
    const times = (await readChainedEvents(store.pool, stream, 0, 100)).map((e) => e.at);
    assert.deepEqual(times, [...times].sort());
  });
});
