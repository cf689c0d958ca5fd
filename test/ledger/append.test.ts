import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'vitest';
import { eventHash, genesisHash } from '../../src/domain/ledger/hash-chain.js';
import { payload, redact, Redacted } from '../../src/domain/ledger/redaction.js';
import { appendEvent } from '../../src/store/ledger.js';
import { withTransaction } from '../../src/store/pool.js';
import { useStorePool } from '../support/store-pool.js';
import { requested } from './support.js';

const store = useStorePool(60);

describe('appends', () => {
  test('each event links to the previous one by hash, from the genesis hash', async () => {
    const stream = `stream-${randomUUID()}`;
    for (let n = 0; n < 3; n += 1)
      await withTransaction(store.pool, (tx) => appendEvent(tx, stream, requested(n)));
    const { rows } = await store.pool.query(
      `select seq, type, to_char(at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as at, data,
         idempotency_key, prev_hash, hash from ledger_events where stream_id = $1 order by seq`,
      [stream],
    );
    let prev = genesisHash;
    for (const row of rows) {
      assert.equal(row.prev_hash, prev);
      assert.equal(row.hash, eventHash(prev, { ...row, stream_id: stream }));
      prev = row.hash;
    }
  });

  test('a retried append with the same idempotency key adds nothing and returns the original seq', async () => {
    const stream = `stream-${randomUUID()}`;
    const first = await withTransaction(store.pool, (tx) => appendEvent(tx, stream, requested(1)));
    await withTransaction(store.pool, (tx) => appendEvent(tx, stream, requested(2)));
    const again = await Promise.all(
      [1, 2, 3, 4].map(() =>
        withTransaction(store.pool, (tx) => appendEvent(tx, stream, requested(1))),
      ),
    );
    assert.equal(first.appended, true);
    for (const result of again) {
      assert.equal(result.appended, false);
      assert.equal(result.seq, first.seq);
      assert.equal(result.hash, first.hash);
    }
    const { rows } = await store.pool.query(
      'select count(*)::int as n from ledger_events where stream_id = $1',
      [stream],
    );
    assert.equal(rows[0].n, 2);
  });

  test('the past cannot be updated or deleted through SQL while the append-only trigger stands', async () => {
    const stream = `stream-${randomUUID()}`;
    await withTransaction(store.pool, (tx) => appendEvent(tx, stream, requested(1)));
    await assert.rejects(
      store.pool.query(`update ledger_events set data = '{}' where stream_id = $1`, [stream]),
      /immutable/,
    );
    await assert.rejects(
      store.pool.query('delete from ledger_events where stream_id = $1', [stream]),
      /immutable/,
    );
  });
});

describe('redaction', () => {
  test('payloads become digests and fields outside the allow-list are dropped', () => {
    const facts = {
      tool_call_id: 'c1',
      tool: 'Read',
      execute: false,
      arguments: payload({ secret: 'canary-123' }),
      smuggled: 'canary-456',
    };
    const event = redact('tool.requested', facts);
    assert.equal(event.type, 'tool.requested');
    assert.match(String(event.data.arguments_digest), /^sha256:[0-9a-f]{64}$/);
    assert.equal(JSON.stringify(event).includes('canary'), false);
    assert.equal('smuggled' in event.data, false);
  });

  test('an unwrapped payload is refused rather than stored', () => {
    assert.throws(
      () =>
        redact('tool.requested', {
          tool_call_id: 'c1',
          tool: 'Read',
          execute: false,
          arguments: { secret: 'x' } as never,
        }),
      /payload/,
    );
  });

  test('nothing but the redactor can construct an envelope', () => {
    const Forge = Redacted as unknown as new (...args: unknown[]) => Redacted;
    assert.throws(
      () => new Forge(Symbol('redactor'), 'tool.requested', {}, 'k'),
      /only the redactor/,
    );
    assert.equal(
      Redacted.isRedacted({ type: 'tool.requested', data: {}, idempotencyKey: 'k' }),
      false,
    );
  });
});
