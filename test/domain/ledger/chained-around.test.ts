/** The event's text split around its time and seq, as a statement chains it under the head's lock. */
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

/** What the statement hashes: the previous hash, then the pieces with the time and seq it read. */
const hashedAs = (
  prevHash: string,
  at: string,
  seq: number,
  around: ReturnType<typeof chainedAround>,
) => sha256Hex(`${prevHash}${around.open}"${at}"${around.beforeSeq}${String(seq)}${around.after}`);

test("the previous hash, the pieces, the time and the seq hash to the event's chained hash, whatever the event holds", () => {
  fc.assert(
    fc.property(event, fc.stringMatching(/^[0-9a-f]{64}$/), (chained, prevHash) => {
      const { seq, at, ...rest } = chained;
      assert.equal(hashedAs(prevHash, at, seq, chainedAround(rest)), eventHash(prevHash, chained));
    }),
    { numRuns: 500 },
  );
});

test('no piece holds the time or the seq: the same pieces chain the event at any', () => {
  const fixed = {
    stream_id: 's',
    type: 'tool.requested',
    data: { seq: 7, at: 'x', note: 'é €' },
    idempotency_key: 'tool.requested:c',
  };
  const around = chainedAround(fixed);
  for (const [seq, at] of [
    [1, '2026-12-06T00:00:00.000Z'],
    [9, '2026-12-06T23:59:59.999Z'],
    [123_456_789, '1999-01-01T12:00:00.010Z'],
  ] as const) {
    assert.equal(
      hashedAs('0'.repeat(64), at, seq, around),
      eventHash('0'.repeat(64), { ...fixed, seq, at }),
    );
  }
});
