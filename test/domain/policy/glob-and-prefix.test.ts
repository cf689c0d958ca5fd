import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import fc from 'fast-check';
import { evaluatePolicy } from '../../../src/domain/policy/policy.js';
import { wordGlobMatches } from '../../../src/domain/policy/glob.js';
import { verdictOf, withArgs } from './support.js';

const input = (value: string) => ({
  tool: 'Bash',
  class: 'sandbox' as const,
  effect: 'write' as const,
  arguments: { command: value },
});

const denyGlob = withArgs('deny', { path: '/command', op: 'glob', value: 'rm *' });
const denyPrefix = withArgs('deny', { path: '/command', op: 'prefix', value: 'rm ' });

// Each is a character a model can append or insert to walk out of a pattern that stops at it.
const separators: [string, string][] = [
  ['line feed', '\n'],
  ['carriage return', '\r'],
  ['CR LF', '\r\n'],
  ['NUL', '\0'],
  ['line separator U+2028', '\u2028'],
  ['paragraph separator U+2029', '\u2029'],
  ['next line U+0085', '\u0085'],
  ['vertical tab', '\v'],
  ['form feed', '\f'],
  ['tab', '\t'],
  ['no-break space', '\u00a0'],
  ['zero-width space', '\u200b'],
  ['right-to-left override', '\u202e'],
  ['byte order mark', '\ufeff'],
  ['an astral character', '🎉'],
  ['a lone surrogate', '\ud800'],
];

const tails = ['-rf /', '-rf ../../', 'x/../../etc', '.', '..', './x', '.hidden', '/', '//x', ''];

describe('glob and prefix match the whole value whatever its characters', () => {
  for (const [name, char] of separators) {
    test(`a ${name} anywhere after the pattern's text does not escape "rm *" or prefix "rm "`, () => {
      for (const value of [
        `rm -rf /${char}`,
        `rm ${char}-rf /`,
        `rm -rf${char}/`,
        `rm ${char}`,
        `rm x${char}${char}y`,
      ]) {
        assert.equal(verdictOf([denyGlob], 'allow', input(value)), 'deny', JSON.stringify(value));
        assert.equal(verdictOf([denyPrefix], 'allow', input(value)), 'deny', JSON.stringify(value));
      }
    });
  }

  test('dotfiles, `..` segments, leading and repeated slashes are characters like any other', () => {
    for (const tail of tails) {
      const value = `rm ${tail}`;
      assert.equal(verdictOf([denyGlob], 'allow', input(value)), 'deny', JSON.stringify(value));
    }
    const everything = withArgs('deny', { path: '/command', op: 'glob', value: '*' });
    for (const value of ['./a', '../x', '.', '..', '/a', '//a', '.a', 'a/.b', '\n', '\0']) {
      assert.equal(verdictOf([everything], 'allow', input(value)), 'deny', JSON.stringify(value));
    }
  });

  test('a glob still means what it says: no partial matches, ? is one character', () => {
    const table: [string, string, boolean][] = [
      ['rm *', 'rm', false],
      ['rm *', 'xrm -rf', false],
      ['rm *', 'rmdir x', false],
      ['rm ?', 'rm 🎉', true],
      ['rm ?', 'rm \n', true],
      ['rm ?', 'rm ab', false],
      ['[!a]', '\n', true],
      ['[a-c]x', 'bx', true],
      ['[a-c]x', 'dx', false],
      ['[[:digit:]]', '7', true],
      ['\\*', '*', true],
      ['\\*', 'x', false],
      ['a{b,c}', 'ab', false],
      ['a{b,c}', 'a{b,c}', true],
      ['[z-a]', '-', true],
      ['[', '[', true],
      ['constructor', 'constructor', true],
      ['*', '', true],
    ];
    for (const [pattern, value, expected] of table) {
      const r = withArgs('deny', { path: '/command', op: 'glob', value: pattern });
      assert.equal(
        evaluatePolicy({ rules: [r], default: 'allow' }, input(value)).verdict === 'deny',
        expected,
        `${pattern} against ${JSON.stringify(value)}`,
      );
    }
  });

  test('several stars do not make matching a long value slow (no backtracking blow-up)', () => {
    const started = performance.now();
    const long = '/secrets/'.repeat(25_000);
    const globs = ['*/secrets/*.pem', '*a*b*c*d*e*f*x', '*[/]*[/]*[!/]'];
    for (const value of globs) {
      const r = withArgs('deny', { path: '/command', op: 'glob', value });
      assert.equal(verdictOf([r], 'allow', input(long)), 'allow', value);
    }
    const deepPath = withArgs('deny', { path: '/p', op: 'path', value: '/**/s/**/s/**/x' });
    const path = { ...input(''), arguments: { p: '/s'.repeat(100_000) } };
    assert.equal(verdictOf([deepPath], 'allow', path), 'allow');
    assert.ok(performance.now() - started < 2000, 'catastrophically slow');
  });

  test('property: a glob of stars, ? and literals means the same in both regex engines', () => {
    // A reference reading: `*` any run, `?` one code point, `\\` quotes the next character.
    const reference = (pattern: string, value: string): boolean => {
      const p = Array.from(pattern);
      const v = Array.from(value);
      const tokens: (string | { any: boolean })[] = [];
      for (let i = 0; i < p.length; i += 1) {
        const c = p[i] as string;
        if (c === '\\' && i + 1 < p.length) tokens.push(p[(i += 1)] as string);
        else if (c === '*' || c === '?') tokens.push({ any: c === '*' });
        else tokens.push(c);
      }
      let states = new Set([0]);
      const close = (set: Set<number>) => {
        tokens.forEach((t, i) => {
          if (set.has(i) && typeof t === 'object' && t.any) set.add(i + 1);
        });
        return set;
      };
      states = close(states);
      for (const char of v) {
        const next = new Set<number>();
        for (const i of states) {
          const t = tokens[i];
          if (t === undefined) continue;
          if (typeof t === 'object') next.add(t.any ? i : i + 1);
          else if (t === char) next.add(i + 1);
        }
        states = close(next);
      }
      return states.has(tokens.length);
    };
    const unit = fc.constantFrom('*', '?', 'a', 'b', '\\', '/', '.', '\n', '🎉', '[', '(', '$');
    const text = (max: number) => fc.array(unit, { maxLength: max }).map((u) => u.join(''));
    fc.assert(
      fc.property(text(8), text(10), (pattern, value) => {
        assert.equal(wordGlobMatches(pattern, value), reference(pattern, value));
      }),
      { seed: 20_261_111, numRuns: 3000 },
    );
  });

  test('tool names are matched the same way', () => {
    const r = { id: 'r', match: { tool: 'mcp__github__*' }, verdict: 'deny' as const };
    for (const tool of ['mcp__github__x\n', 'mcp__github__\u2028', 'mcp__github__../x']) {
      assert.equal(verdictOf([r], 'allow', { ...input(''), tool }), 'deny', JSON.stringify(tool));
    }
  });
});
