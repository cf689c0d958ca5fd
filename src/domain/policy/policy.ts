import picomatch from 'picomatch';
import { z } from 'zod';
import { canonicalJson } from '../ledger/digest.js';
import { parseJsonPointer, resolveJsonPointer } from './json-pointer.js';
import { effectSchema, type Effect, type ToolClass } from '../tools/tools.js';

export const verdictSchema = z.enum(['allow', 'deny', 'require_approval']);
export type Verdict = z.infer<typeof verdictSchema>;

const jsonPointerSchema = z
  .string()
  .max(512)
  .refine(
    (p) => {
      try {
        parseJsonPointer(p);
        return true;
      } catch {
        return false;
      }
    },
    { error: 'must be a JSON pointer (RFC 6901), such as "/path" or ""' },
  );

const globSchema = z.string().min(1).max(256);

const argPredicateSchema = z.discriminatedUnion('op', [
  z.object({ path: jsonPointerSchema, op: z.literal('eq'), value: z.unknown() }).strict(),
  z
    .object({ path: jsonPointerSchema, op: z.literal('in'), value: z.array(z.unknown()).max(1000) })
    .strict(),
  z
    .object({ path: jsonPointerSchema, op: z.literal('prefix'), value: z.string().max(4096) })
    .strict(),
  z.object({ path: jsonPointerSchema, op: z.literal('glob'), value: globSchema }).strict(),
  z.object({ path: jsonPointerSchema, op: z.literal('exists') }).strict(),
]);
export type ArgPredicate = z.infer<typeof argPredicateSchema>;

export const ruleSchema = z
  .object({
    id: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'a rule id is 1 to 64 plain characters'),
    match: z
      .object({
        tool: globSchema.optional(),
        class: z.enum(['sandbox', 'brokered']).optional(),
        effect: effectSchema.optional(),
        args: z.array(argPredicateSchema).max(32).optional(),
      })
      .strict(),
    verdict: verdictSchema,
  })
  .strict();
export type Rule = z.infer<typeof ruleSchema>;

export const policyBodySchema = z
  .object({
    workspace: z.uuid(),
    name: z.string().min(1).max(200),
    rules: z
      .array(ruleSchema)
      .max(500)
      .refine((rules) => new Set(rules.map((r) => r.id)).size === rules.length, {
        error: 'rule ids must be unique',
      }),
    default: verdictSchema,
    autonomous_fallback: z.enum(['allow', 'deny']),
    approval: z
      .object({
        timeout_s: z
          .number()
          .int()
          .min(1)
          .max(7 * 24 * 3600),
        on_timeout: z.enum(['deny', 'allow']),
      })
      .strict(),
  })
  .strict();
export type PolicyBody = z.infer<typeof policyBodySchema>;

/** What policy evaluation sees of a call: the frozen tool's facts and the arguments. */
export interface PolicyInput {
  tool: string;
  class: ToolClass;
  effect: Effect;
  arguments: unknown;
}

export interface PolicyVerdict {
  verdict: Verdict;
  /** The rule that matched, or null when the policy's default decided. */
  rule_id: string | null;
}

// `*` matches any run of characters, "/" and leading dots included: a rule about `/repo/*`
// covers everything below /repo, and `rm *` covers `rm -rf /`. `?` is one character.
const globOptions = { dot: true, bash: true, noextglob: true } as const;

// Compiling a glob costs far more than matching it: keep the compiled matchers (bounded).
const matchers = new Map<string, (value: string) => boolean>();
const maxMatchers = 10_000;

function globMatches(pattern: string, value: string): boolean {
  let matcher = matchers.get(pattern);
  if (!matcher) {
    if (matchers.size >= maxMatchers) matchers.clear();
    matcher = picomatch(pattern, globOptions);
    matchers.set(pattern, matcher);
  }
  return matcher(value);
}

function sameJson(a: unknown, b: unknown): boolean {
  if (a === undefined || b === undefined) return false;
  return canonicalJson(a) === canonicalJson(b);
}

export function predicateHolds(predicate: ArgPredicate, args: unknown): boolean {
  const value = resolveJsonPointer(args, parseJsonPointer(predicate.path));
  switch (predicate.op) {
    case 'exists':
      return value !== undefined;
    case 'eq':
      return sameJson(value, predicate.value);
    case 'in':
      return predicate.value.some((candidate) => sameJson(value, candidate));
    case 'prefix':
      return typeof value === 'string' && value.startsWith(predicate.value);
    case 'glob':
      return typeof value === 'string' && globMatches(predicate.value, value);
  }
}

export function ruleMatches(rule: Rule, input: PolicyInput): boolean {
  const { match } = rule;
  if (match.tool !== undefined && !globMatches(match.tool, input.tool)) return false;
  if (match.class !== undefined && match.class !== input.class) return false;
  if (match.effect !== undefined && match.effect !== input.effect) return false;
  return (match.args ?? []).every((predicate) => predicateHolds(predicate, input.arguments));
}

/** First matching rule wins; no match gives the policy's default. */
export function evaluatePolicy(
  policy: Pick<PolicyBody, 'rules' | 'default'>,
  input: PolicyInput,
): PolicyVerdict {
  for (const rule of policy.rules) {
    if (ruleMatches(rule, input)) return { verdict: rule.verdict, rule_id: rule.id };
  }
  return { verdict: policy.default, rule_id: null };
}
