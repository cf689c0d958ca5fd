import assert from 'node:assert/strict';
import { test } from 'vitest';
import { explainDecision, type DecisionRecord } from '../../../src/domain/gate/explanation.js';

const run: DecisionRecord['run'] = {
  max_tokens: 1000,
  toolset_digest: 'sha256:set',
  trust_tier: 'trusted',
  autonomy: 'supervised',
  policy_id: 'p',
  policy_version: 2,
};

const verdicts = (record: DecisionRecord) =>
  explainDecision(record).map((stage) => [stage.stage, stage.verdict]);

test('a call that asked a person: every stage passed, policy asked, the approval decided', () => {
  const record: DecisionRecord = {
    run,
    tool: undefined,
    decision: { stage: 'approval', decision: 'allow', verdict: 'require_approval' },
    approvalRequested: {
      rule_id: 'ask',
      matched: 'tool "Bash"',
      shadow_version: 3,
      shadow_verdict: 'allow',
      shadow_rule_id: 'ok',
      shadow_agrees: false,
    },
    approvalDecided: { outcome: 'approved', decision: 'allow', decided_by: 'u1' },
  };
  assert.deepEqual(verdicts(record), [
    ['budget', 'pass'],
    ['capability', 'pass'],
    ['schema', 'pass'],
    ['trust_tier', 'pass'],
    ['policy', 'require_approval'],
    ['approval', 'allow'],
  ]);
  const policy = explainDecision(record)[4]?.looked_at;
  assert.ok(policy);
  assert.equal(policy.matched, 'tool "Bash"');
  assert.deepEqual(policy.shadow, { version: 3, verdict: 'allow', rule_id: 'ok', agrees: false });
});

test('a binding deny is the capability stage: nothing after it was reached', () => {
  const record: DecisionRecord = {
    run,
    tool: undefined,
    decision: { stage: 'binding', decision: 'deny' },
  };
  assert.deepEqual(verdicts(record), [
    ['budget', 'pass'],
    ['capability', 'deny'],
    ['schema', 'not_reached'],
    ['trust_tier', 'not_reached'],
    ['policy', 'not_reached'],
  ]);
});
