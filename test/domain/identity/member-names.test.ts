import assert from 'node:assert/strict';
import { test } from 'vitest';
import { keptName, nameCandidates } from '../../../src/domain/identity/member-names.js';

test('a name is kept with its spaces collapsed, control and format characters dropped, bounded', () => {
  assert.equal(keptName('  Sam \t Same \n'), 'Sam Same');
  assert.equal(keptName('Sam\u200bSame\u0007'), 'SamSame');
  assert.equal(keptName('\u202e\u0000 '), 'unnamed');
  assert.equal(keptName('x'.repeat(500)).length, 200);
});

test('the names tried for a wanted one are itself, then numbered', () => {
  assert.deepEqual(nameCandidates(' Sam  Same', 3), ['Sam Same', 'Sam Same (2)', 'Sam Same (3)']);
});
