import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import {
  escapeUnstorable,
  unstorableFields,
  unstorableReason,
} from '../../../src/domain/gate/storable-text.js';

describe('text PostgreSQL cannot store', () => {
  const cases: [string, string, boolean][] = [
    ['plain text', 'rm -rf /', true],
    ['a paired surrogate (an emoji)', 'ok \u{1F600}', true],
    ['U+FFFF and U+FFFE', '\uffff\ufffe', true],
    ['a NUL', 'a\u0000', false],
    ['a lone high surrogate', '\ud83d', false],
    ['a lone low surrogate', '\ude00x', false],
    ['a pair in the wrong order', '\ude00\ud83d', false],
  ];
  for (const [name, text, storable] of cases) {
    test(`${name}: ${storable ? 'stored' : 'refused'}`, () => {
      assert.equal(unstorableReason(text) === undefined, storable);
    });
  }

  test('found in keys and values at any depth, each at its own path', () => {
    const found = unstorableFields({ a: [1, { b: 'x\u0000' }], 'k\ud800': { ok: 'fine' } });
    assert.deepEqual(
      found.map((f) => [f.path, f.inKey]),
      [
        [['k\ud800'], true],
        [['a', 1, 'b'], false],
      ],
    );
  });

  test('a deep value costs no stack', () => {
    let deep: unknown = 'x\u0000';
    for (let i = 0; i < 100_000; i += 1) deep = [deep];
    assert.equal(unstorableFields(deep).length, 1);
  });

  test('shown escaped, so a message can name it', () => {
    assert.equal(escapeUnstorable('a\u0000b\ud800\u{1F600}'), 'a\\u0000b\\ud800\u{1F600}');
  });
});
