/**
 * A thousand appends to one stream at once: a load test of the ledger's locking. The appends
 * queue on one row lock, so the file runs alone, after the concurrent ones.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'vitest';
import { appendEvent, readEvents } from '../../src/store/ledger.js';
import { withTransaction } from '../../src/store/pool.js';
import { useStorePool } from '../support/store-pool.js';
import { requested } from './support.js';

const store = useStorePool(60);

class RollBackOnPurpose extends Error {}

test('1000 concurrent appends, a share rolled back: seq is exactly 1..committed, and a polling reader misses nothing', async () => {
  const stream = `stream-${randomUUID()}`;
  const seen: number[] = [];
  const writers = { done: false };
  const reader = (async () => {
    let last = 0;
    for (;;) {
      const events = await readEvents(store.pool, stream, last, 1000);
      for (const event of events) {
        seen.push(event.seq);
        last = event.seq;
      }
      if (events.length === 0) {
        if (writers.done) break;
        await new Promise((r) => setTimeout(r, 5));
      }
    }
  })();

  const outcomes = await Promise.all(
    Array.from({ length: 1000 }, async (_, n) => {
      try {
        await withTransaction(store.pool, async (tx) => {
          await appendEvent(tx, stream, requested(n));
          if (n % 7 === 3) throw new RollBackOnPurpose();
        });
        return 'committed';
      } catch (err) {
        if (err instanceof RollBackOnPurpose) return 'rolled back';
        throw err;
      }
    }),
  );
  writers.done = true;
  await reader;
  const committed = outcomes.filter((o) => o === 'committed').length;
  assert.equal(
    committed,
    1000 - Array.from({ length: 1000 }, (_, n) => n).filter((n) => n % 7 === 3).length,
  );

  const { rows } = await store.pool.query<{ seq: number }>(
    'select seq from ledger_events where stream_id = $1 order by seq',
    [stream],
  );
  assert.deepEqual(
    rows.map((r) => r.seq),
    Array.from({ length: committed }, (_, i) => i + 1),
  );
  // The reader, reading `after=last` while appends committed, saw every seq once, in order.
  const tail = await readEvents(store.pool, stream, seen.at(-1) ?? 0, 1000);
  for (const event of tail) seen.push(event.seq);
  assert.deepEqual(
    seen,
    Array.from({ length: committed }, (_, i) => i + 1),
  );
});
