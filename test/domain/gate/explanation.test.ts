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
  explainDecision(record, true).map((stage) => [stage.stage, stage.verdict]);

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
  const policy = explainDecision(record, true)[4]?.looked_at;
  assert.ok(policy);
  assert.equal(policy.matched, 'tool "Bash"');
  assert.deepEqual(policy.shadow, { version: 3, verdict: 'allow', rule_id: 'ok', agrees: false });
});

test('for a viewer who may not read the arguments, nothing read off them: neither their digest nor the patterns they matched; the verdicts stand', () => {
  const record: DecisionRecord = {
    run,
    tool: undefined,
    requested: { arguments_digest: 'sha256:args' },
    decision: { stage: 'policy', decision: 'deny', rule_id: 'no-rm', matched: 'tool "Bash"' },
  };
  const shown = explainDecision(record, true);
  const hidden = explainDecision(record, false);
  assert.equal(shown[2]?.looked_at.arguments_digest, 'sha256:args');
  assert.equal(shown[4]?.looked_at.matched, 'tool "Bash"');
  assert.ok(!JSON.stringify(hidden).includes('sha256:args'));
  assert.ok(!('matched' in (hidden[4]?.looked_at ?? {})));
  assert.equal(hidden[4]?.looked_at.rule_id, 'no-rm');
  assert.deepEqual(
    hidden.map((stage) => stage.verdict),
    shown.map((stage) => stage.verdict),
  );
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
