/** The event's text split around its seq, as a statement chains it under the head's lock. */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { test } from 'vitest';
import { sha256Hex } from '../../../src/domain/ledger/digest.js';
import { chainedAround, eventHash } from '../../../src/domain/ledger/hash-chain.js';

const event = fc.record({
  stream_id: fc.string({ unit: 'binary' }),
  seq: fc.maxSafeNat().map((n) => n + 1),
  type: fc.string(),
  at: fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
  data: fc.dictionary(fc.string({ unit: 'binary' }), fc.jsonValue()),
  idempotency_key: fc.string({ unit: 'grapheme' }),
});

test("the previous hash, the text before the seq, the seq and the text after hash to the event's chained hash, whatever the event holds", () => {
  fc.assert(
    fc.property(event, fc.stringMatching(/^[0-9a-f]{64}$/), (chained, prevHash) => {
      const { seq, ...rest } = chained;
      const { before, after } = chainedAround(rest);
      assert.equal(
        sha256Hex(`${prevHash}${before}${String(seq)}${after}`),
        eventHash(prevHash, chained),
      );
    }),
    { numRuns: 500 },
  );
});

test('neither side holds the seq: the same two texts chain the event at any seq', () => {
  const around = chainedAround({
    stream_id: 's',
    type: 'tool.requested',
    at: '2026-12-06T00:00:00.000Z',
    data: { seq: 7, note: 'é €' },
    idempotency_key: 'tool.requested:c',
  });
  for (const seq of [1, 9, 123_456_789]) {
    const hash = eventHash('0'.repeat(64), {
      stream_id: 's',
      seq,
      type: 'tool.requested',
      at: '2026-12-06T00:00:00.000Z',
      data: { seq: 7, note: 'é €' },
      idempotency_key: 'tool.requested:c',
    });
    assert.equal(sha256Hex(`${'0'.repeat(64)}${around.before}${String(seq)}${around.after}`), hash);
  }
});
