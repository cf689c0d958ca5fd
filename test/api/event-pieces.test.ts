/** How the model relay cuts a chunk of server-sent events where each event ends. */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { test } from 'vitest';
import { eventPieces } from '../../src/api/model-relay.js';

const cut = (text: string) =>
  eventPieces(Buffer.from(text)).map(([start, end]) =>
    Buffer.from(text).subarray(start, end).toString(),
  );

test('a chunk is cut after each blank line, LF or CRLF, and what follows the last one is a piece of its own', () => {
  assert.deepEqual(cut('event: a\ndata: 1\n\nevent: b\ndata: 2\n\n'), [
    'event: a\ndata: 1\n\n',
    'event: b\ndata: 2\n\n',
  ]);
  assert.deepEqual(cut('data: 1\r\n\r\ndata: 2\n\r\ndata: 3'), [
    'data: 1\r\n\r\n',
    'data: 2\n\r\n',
    'data: 3',
  ]);
  assert.deepEqual(cut('data: half of an event'), ['data: half of an event']);
  assert.deepEqual(cut(''), ['']);
});

test('the pieces put back together are the chunk, byte for byte, whatever it holds (a character of several bytes too)', () => {
  fc.assert(
    fc.property(
      fc.array(fc.oneof(fc.constantFrom('\n', '\r', '\r\n', 'data: ', 'é', '€'), fc.string()), {
        maxLength: 40,
      }),
      (parts) => {
        const chunk = Buffer.from(parts.join(''));
        const pieces = eventPieces(chunk);
        assert.equal(
          Buffer.concat(pieces.map(([s, e]) => chunk.subarray(s, e))).equals(chunk),
          true,
        );
        for (const [start, end] of pieces.slice(0, -1)) {
          assert.ok(end > start);
          assert.match(chunk.subarray(start, end).toString('latin1'), /(\r\n|\n)(\r\n|\n)$/);
        }
      },
    ),
  );
});
