import type {
  ArgPredicate,
  PolicyInput,
  Rule,
  Verdict,
} from '../../../src/domain/policy/policy.js';
import { evaluatePolicy, policyBodySchema } from '../../../src/domain/policy/policy.js';

export const bash = (command: unknown): PolicyInput => ({
  tool: 'Bash',
  class: 'sandbox',
  effect: 'write',
  arguments: { command },
});

export const onCommand = (
  id: string,
  verdict: Verdict,
  patterns: string[][],
  uncertain?: Rule['uncertain'],
): Rule => ({
  id,
  match: { tool: 'Bash', args: [{ path: '/command', op: 'command', value: patterns }] },
  verdict,
  ...(uncertain ? { uncertain } : {}),
});

export const withArgs = (verdict: Verdict, ...args: ArgPredicate[]): Rule => ({
  id: 'r',
  match: { args },
  verdict,
});

/** The verdict of a policy of these rules and a default. */
export function verdictOf(rules: Rule[], fallback: Verdict, input: PolicyInput): Verdict {
  return evaluatePolicy({ rules, default: fallback }, input).verdict;
}

/** Whether a policy body of these rules passes the schema; the rest of the body is valid. */
export function policyWithRules(rules: unknown[]) {
  return policyBodySchema.safeParse({
    workspace: '00000000-0000-4000-8000-000000000000',
    name: 'p',
    rules,
    default: 'deny',
    autonomous_fallback: 'deny',
    approval: { timeout_s: 60, on_timeout: 'deny' },
  });
}
