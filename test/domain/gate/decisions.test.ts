import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import {
  brokerFailed,
  decisionFromDenial,
  decisionFromPolicy,
  failedClosed,
} from '../../../src/domain/gate/decisions.js';
import type { PolicyRuling } from '../../../src/domain/gate/vocabulary.js';

const ruling = (overrides: Partial<PolicyRuling>): PolicyRuling & { verdict: 'allow' | 'deny' } =>
  ({
    outcome: 'verdict',
    verdict: 'allow',
    original_verdict: 'allow',
    rule_id: 'reads',
    policy_id: 'p',
    policy_version: 1,
    approval: { timeout_s: 60, on_timeout: 'deny' },
    ...overrides,
  }) as PolicyRuling & { verdict: 'allow' | 'deny' };

describe('decisions from what the stages answered', () => {
  test("a stage's denial keeps its source, rendering and ledger reason", () => {
    assert.deepEqual(
      decisionFromDenial({
        source: 'schema',
        reason: 'the arguments do not match: /path',
        render: 'tool_error',
        ledger_reason: 'the arguments do not match (1 failing path)',
      }),
      {
        answer: {
          status: 'decided',
          decision: 'deny',
          source: 'schema',
          reason: 'the arguments do not match: /path',
          render: 'tool_error',
        },
        stage: 'schema',
        ledger_reason: 'the arguments do not match (1 failing path)',
      },
    );
  });

  test('a stage that cannot answer denies with its own source, saying why to the runner only', () => {
    assert.deepEqual(failedClosed('trust_tier', 'connection refused'), {
      answer: {
        status: 'decided',
        decision: 'deny',
        source: 'trust_tier',
        reason: 'the trust_tier stage could not decide (connection refused); failing closed',
      },
      stage: 'trust_tier',
      ledger_reason: 'the trust_tier stage could not decide; failing closed',
    });
  });

  const cases: [string, Partial<PolicyRuling>, string, string | undefined][] = [
    ['allowed by a rule', {}, 'allowed by rule "reads"', 'reads'],
    ['allowed by the default', { rule_id: null }, 'allowed by the policy default', undefined],
    [
      'denied by a rule',
      { verdict: 'deny', original_verdict: 'deny', rule_id: 'no-rm' },
      'denied by rule "no-rm"',
      'no-rm',
    ],
    [
      'the autonomous fallback for require_approval',
      { verdict: 'deny', original_verdict: 'require_approval', rule_id: 'ask' },
      'denied by rule "ask" (the autonomous fallback for require_approval)',
      'ask',
    ],
  ];
  for (const [name, overrides, reason, ruleId] of cases) {
    test(`policy: ${name}`, () => {
      const decision = decisionFromPolicy(ruling(overrides));
      const verdict = overrides.verdict ?? 'allow';
      assert.equal(decision.answer.decision, verdict);
      assert.equal(decision.answer.reason, reason);
      assert.equal(decision.answer.rule_id, ruleId);
      assert.equal(decision.answer.source, verdict === 'deny' ? 'policy' : undefined);
      assert.equal(decision.stage, 'policy');
      assert.equal(decision.verdict, verdict);
      assert.equal(decision.original_verdict, overrides.original_verdict ?? 'allow');
    });
  }

  test('a brokered call that could not be carried out stays allowed, with a tool error as its result', () => {
    const answer = { status: 'decided' as const, decision: 'allow' as const, reason: 'allowed' };
    assert.deepEqual(brokerFailed(answer, 'upstream down'), {
      ...answer,
      result: {
        isError: true,
        content: [{ type: 'text', text: 'the call could not be carried out (upstream down)' }],
      },
    });
  });
});
