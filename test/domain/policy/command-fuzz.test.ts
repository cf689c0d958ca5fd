import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import fc from 'fast-check';
import {
  allowedCommand,
  composed,
  otherCommand,
  rmSpellings,
} from '../../support/shell-compositions.js';
import { bash, onCommand, verdictOf } from './support.js';

const runs = { seed: 20_261_111, numRuns: 3000 };

const noRm = onCommand('no-rm', 'deny', [['rm', '**']]);
const lenientNoRm = { ...noRm, uncertain: 'require_approval' as const };
const readOnly = onCommand('read-only', 'allow', [
  ['ls', '**'],
  ['echo', '**'],
  ['cat', '**'],
  ['true'],
]);

describe('property: composition never walks around the command operator', () => {
  test('a deny rule on a command is never bypassed by composing that command with anything', () => {
    fc.assert(
      fc.property(composed(rmSpellings, fc.oneof(allowedCommand, otherCommand)), (line) => {
        assert.equal(verdictOf([noRm], 'allow', bash(line)), 'deny');
        assert.notEqual(verdictOf([lenientNoRm], 'allow', bash(line)), 'allow');
      }),
      runs,
    );
  });

  test('an allow never covers a composition containing a command it does not match', () => {
    const line = fc
      .tuple(composed(otherCommand, allowedCommand), fc.boolean())
      .map(([l, wrap]) => (wrap ? `ls; ${l}` : l));
    fc.assert(
      fc.property(line, (l) => {
        assert.notEqual(verdictOf([readOnly], 'require_approval', bash(l)), 'allow');
      }),
      runs,
    );
  });

  test('and an allow does cover compositions of the commands it matches', () => {
    const joined = fc
      .array(fc.tuple(allowedCommand, fc.constantFrom('; ', ' && ', ' || ', ' | ', '\n')), {
        minLength: 1,
        maxLength: 5,
      })
      .map((parts) => parts.map(([c, sep], i) => (i === 0 ? c : sep + c)).join(''));
    fc.assert(
      fc.property(joined, (l) => {
        assert.equal(verdictOf([readOnly], 'deny', bash(l)), 'allow');
      }),
      runs,
    );
  });
});
