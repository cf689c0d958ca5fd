import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { callSummary, readCall } from '../../../src/domain/approvals/call-reading.js';
import { diffCounts, lineDiff } from '../../../src/domain/approvals/line-diff.js';
import { pullRequestUrl } from '../../../src/domain/approvals/run-source-link.js';

describe('a call read for a person', () => {
  test('two writes of one tool read apart in one line: each path and its line count', () => {
    assert.equal(
      callSummary('Write', { file_path: '/repo/a.yaml', content: 'replicas: 3\nimage: x\n' }),
      '/repo/a.yaml (3 lines)',
    );
    assert.equal(
      callSummary('Write', { file_path: '/repo/b.yaml', content: 'one' }),
      '/repo/b.yaml (1 line)',
    );
  });

  test('a Bash call reads as its command line, the first line of a long script marked as more', () => {
    assert.equal(callSummary('Bash', { command: 'npm test -- --watch' }), 'npm test -- --watch');
    assert.equal(callSummary('Bash', { command: 'set -e\nnpm ci' }), 'set -e …');
    assert.equal(callSummary('Bash', { command: 'x'.repeat(500) }).length, 160);
  });

  test('an edit reads as its path with the lines it adds and removes', () => {
    const edit = { file_path: '/r/f.ts', old_string: 'a\nb\nc', new_string: 'a\nB\nc\nd' };
    assert.equal(callSummary('Edit', edit), '/r/f.ts +2 −1');
    const multi = {
      file_path: '/r/f.ts',
      edits: [
        { old_string: 'x', new_string: 'y' },
        { old_string: 'p', new_string: 'p\nq' },
      ],
    };
    assert.equal(callSummary('MultiEdit', multi), '/r/f.ts +2 −1');
  });

  test('an MCP tool reads as its key arguments, named ones first, three at most', () => {
    assert.equal(
      callSummary('mcp__jira__create_issue', {
        summary: 'Fix it',
        project: 'OPS',
        labels: ['a'],
        priority: 2,
        path: '/x',
      }),
      'path=/x summary=Fix it project=OPS +2 more',
    );
  });

  test('arguments of an unexpected shape are read generically, never guessed at', () => {
    assert.deepEqual(readCall('Edit', { file_path: '/x', old_string: 1 }), { kind: 'generic' });
    assert.deepEqual(readCall('MultiEdit', { file_path: '/x', edits: [] }), { kind: 'generic' });
    assert.deepEqual(readCall('Bash', { command: ['rm'] }), { kind: 'generic' });
  });

  test("a Bash call is read into the commands the policy's shell parser finds, wrappers included", () => {
    const reading = readCall('Bash', { command: 'sudo rm -rf /tmp/x && npm test' });
    assert.ok(reading.kind === 'bash');
    const programs = reading.analysis.commands.map((c) =>
      c.program.known ? c.program.value : '?',
    );
    assert.deepEqual(programs, ['sudo', 'rm', 'npm']);
    assert.equal(reading.analysis.commands[0]?.role, 'wrapper');
  });
});

describe('a line diff', () => {
  test('keeps the common lines and shows the removed line before the added one', () => {
    assert.deepEqual(lineDiff('a\nb\nc', 'a\nx\nc'), [
      { kind: 'same', text: 'a' },
      { kind: 'removed', text: 'b' },
      { kind: 'added', text: 'x' },
      { kind: 'same', text: 'c' },
    ]);
  });

  test('an empty old text is all added; counts add up', () => {
    const diff = lineDiff('', 'one\ntwo');
    assert.deepEqual(diffCounts(diff), { added: 2, removed: 0 });
  });

  test('a middle too large to align is still exact: all removed, then all added', () => {
    const before = Array.from({ length: 1000 }, (_, i) => `b${i}`).join('\n');
    const after = Array.from({ length: 1000 }, (_, i) => `a${i}`).join('\n');
    assert.deepEqual(diffCounts(lineDiff(before, after)), { added: 1000, removed: 1000 });
  });
});

describe("a run's pull request link", () => {
  test('names the pull request on its base repository, and nothing for a name that is not owner/name', () => {
    const pr = (base_repo: string) => ({
      kind: 'pull_request' as const,
      pull_request: { base_repo, number: 7 },
    });
    assert.equal(pullRequestUrl(pr('acme/widgets')), 'https://github.com/acme/widgets/pull/7');
    assert.equal(pullRequestUrl(pr('javascript:alert(1)//x')), undefined);
    assert.equal(pullRequestUrl({ kind: 'manual', repository: 'acme/widgets' }), undefined);
  });
});
