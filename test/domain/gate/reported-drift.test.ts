import assert from 'node:assert/strict';
import { test } from 'vitest';
import { reportedDriftVerdict } from '../../../src/domain/gate/reported-drift.js';

const frozen = { name: 'mcp__fs__read_file', digest: `sha256:${'a'.repeat(64)}` };
const other = `sha256:${'b'.repeat(64)}`;

test('a runner report of what its sandbox serves can only deny, as capability', () => {
  const cases: [string, string | null | undefined, string][] = [
    ['no report', undefined, 'pass'],
    ['the frozen digest', frozen.digest, 'pass'],
    ['another digest', other, 'deny'],
    ['no longer served', null, 'deny'],
  ];
  for (const [what, observed, outcome] of cases) {
    const verdict = reportedDriftVerdict(frozen, observed);
    assert.equal(verdict.outcome, outcome, what);
    if (verdict.outcome === 'deny') assert.equal(verdict.source, 'capability', what);
  }
});

test('the reason says whether the tool drifted or was withdrawn', () => {
  const drifted = reportedDriftVerdict(frozen, other);
  const withdrawn = reportedDriftVerdict(frozen, null);
  assert.ok(drifted.outcome === 'deny' && withdrawn.outcome === 'deny');
  assert.match(drifted.reason, /drifted since the run froze it/);
  assert.match(drifted.reason, new RegExp(other));
  assert.match(withdrawn.reason, /no longer offered/);
});
