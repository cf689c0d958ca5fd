import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import type { Rule } from '../../../src/domain/policy/policy.js';
import { normaliseAbsolutePath, resolvePath } from '../../../src/domain/policy/path-match.js';
import { policyWithRules, verdictOf, withArgs } from './support.js';

const read = (file_path: unknown) => ({
  tool: 'Read',
  class: 'sandbox' as const,
  effect: 'read' as const,
  arguments: { file_path },
});

const inRepo = (base?: string): Rule =>
  withArgs('allow', {
    path: '/file_path',
    op: 'path',
    value: '/repo/**',
    ...(base ? { base } : {}),
  });
const noSecrets: Rule = withArgs('deny', { path: '/file_path', op: 'path', value: '**/.env' });

describe('the path operator normalises before it matches', () => {
  test('normalisation: `.`, `..`, repeated and trailing slashes', () => {
    const table: [string, string][] = [
      ['/repo/a', '/repo/a'],
      ['/repo/./a', '/repo/a'],
      ['/repo//a///b/', '/repo/a/b'],
      ['/repo/../etc/passwd', '/etc/passwd'],
      ['/repo/a/../../etc', '/etc'],
      ['/../../etc', '/etc'],
      ['//', '/'],
      ['/repo/..', '/'],
      ['/repo/.../x', '/repo/.../x'],
      ['/repo/a\n/../b', '/repo/b'],
    ];
    for (const [path, normal] of table) assert.equal(normaliseAbsolutePath(path), normal, path);
  });

  test('an allow below /repo covers what resolves below /repo, and nothing that walks out', () => {
    const table: [unknown, 'allow' | 'deny'][] = [
      ['/repo', 'allow'],
      ['/repo/', 'allow'],
      ['/repo/src/a.ts', 'allow'],
      ['/repo/.env.example', 'allow'],
      ['/repo//src///a.ts', 'allow'],
      ['/repo/./src/./a.ts', 'allow'],
      ['/repo/src/../README.md', 'allow'],
      ['/repo/a\nb', 'allow'],
      ['/repo/../etc/passwd', 'deny'],
      ['/repo/src/../../etc/passwd', 'deny'],
      ['/repo/..', 'deny'],
      ['/repo/../repo2/x', 'deny'],
      ['/repox/a', 'deny'],
      ['//etc/passwd', 'deny'],
      ['/etc/passwd', 'deny'],
      ['repo/a', 'deny'],
      ['./a', 'deny'],
      ['../a', 'deny'],
      ['~/.ssh/id_rsa', 'deny'],
      ['', 'deny'],
      ['/repo/a\0/../../etc/passwd', 'deny'],
      [3, 'deny'],
      [null, 'deny'],
      [['/repo/a'], 'deny'],
    ];
    for (const [path, expected] of table) {
      assert.equal(verdictOf([inRepo()], 'deny', read(path)), expected, JSON.stringify(path));
    }
  });

  test('relative paths resolve against a stated base; without one they are uncertain', () => {
    const table: [string, 'allow' | 'deny'][] = [
      ['src/a.ts', 'allow'],
      ['./src/a.ts', 'allow'],
      ['src/../b', 'allow'],
      ['.', 'allow'],
      ['', 'allow'],
      ['../etc/passwd', 'deny'],
      ['src/../../etc', 'deny'],
      ['~/x', 'deny'],
      ['/etc/passwd', 'deny'],
    ];
    for (const [path, expected] of table) {
      assert.equal(verdictOf([inRepo('/repo')], 'deny', read(path)), expected, path);
    }
    assert.equal(resolvePath('a', undefined), null);
    // Uncertain means the rule's uncertain verdict, whatever the default says.
    const asking = { ...inRepo(), uncertain: 'require_approval' as const };
    assert.equal(verdictOf([asking], 'allow', read('src/a.ts')), 'require_approval');
    assert.equal(verdictOf([inRepo()], 'allow', read('src/a.ts')), 'deny');
  });

  test('a deny on a file name anywhere catches every spelling of it', () => {
    for (const path of ['/.env', '/repo/.env', '/repo/a/../.env', '/repo//.env', '/repo/./.env/']) {
      assert.equal(verdictOf([noSecrets], 'allow', read(path)), 'deny', path);
    }
    for (const path of ['/repo/.env.example', '/repo/x.env', '/repo/.envrc']) {
      assert.equal(verdictOf([noSecrets], 'allow', read(path)), 'allow', path);
    }
  });

  test('path globs: * stays within a segment, ** spans any number of them', () => {
    const table: [string, string, boolean][] = [
      ['/repo/*', '/repo/a', true],
      ['/repo/*', '/repo/a/b', false],
      ['/repo/*', '/repo/.hidden', true],
      ['/repo/**/*.ts', '/repo/a.ts', true],
      ['/repo/**/*.ts', '/repo/a/b/c.ts', true],
      ['/repo/**/*.ts', '/repo/a/b/c.js', false],
      ['/', '/', true],
      ['/', '/a', false],
      ['**', '/anything/at/all', true],
      ['/repo/[!.]*', '/repo/.git', false],
      ['/repo/?', '/repo/🎉', true],
    ];
    for (const [pattern, path, expected] of table) {
      const r = withArgs('deny', { path: '/file_path', op: 'path', value: pattern });
      assert.equal(verdictOf([r], 'allow', read(path)) === 'deny', expected, `${pattern} ${path}`);
    }
  });

  test('the schema refuses path globs that no normalised path could match', () => {
    const parses = (predicate: Record<string, unknown>) =>
      policyWithRules([
        { id: 'r', match: { args: [{ path: '/p', op: 'path', ...predicate }] }, verdict: 'deny' },
      ]).success;
    for (const value of ['/', '/repo/**', '**', '**/.env', '/a/*.ts']) {
      assert.equal(parses({ value }), true, value);
    }
    for (const value of ['repo/**', '/repo/', '/repo//a', '/repo/../etc', '/./a', '', '*.ts']) {
      assert.equal(parses({ value }), false, value);
    }
    assert.equal(parses({ value: '/repo/**', base: '/repo' }), true);
    assert.equal(parses({ value: '/repo/**', base: 'repo' }), false);
  });
});
