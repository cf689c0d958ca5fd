import type { PolicyVerdict, Verdict } from '../policy/policy.js';

interface EffectiveVerdict extends PolicyVerdict {
  /** What the policy said, before autonomy rewrote require_approval; the ledger records both. */
  original_verdict: Verdict;
}

/**
 * Autonomy changes one thing: require_approval becomes the policy's fallback. Every other
 * verdict, and every stage before policy, is the same in both modes.
 */
export function applyAutonomy(
  verdict: PolicyVerdict,
  autonomy: 'supervised' | 'autonomous',
  fallback: 'allow' | 'deny',
): EffectiveVerdict {
  const rewritten = autonomy === 'autonomous' && verdict.verdict === 'require_approval';
  return {
    verdict: rewritten ? fallback : verdict.verdict,
    rule_id: verdict.rule_id,
    original_verdict: verdict.verdict,
  };
}
