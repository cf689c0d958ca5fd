import { z } from 'zod';
import { canonicalJson } from '../ledger/digest.js';
import { parseJsonPointer, resolveJsonPointer } from './json-pointer.js';
import { commandOutcome, stagesOf, type CommandMode } from './command-match.js';
import { wordGlobMatches } from './glob.js';
import { allOf, type MatchOutcome } from './match-outcome.js';
import { pathOutcome } from './path-match.js';
import { commandPatternSchema, pathGlobSchema, absolutePathSchema } from './policy-schema.js';
import { analyseCommand, type CommandAnalysis } from './shell-command.js';
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
  z
    .object({
      path: jsonPointerSchema,
      op: z.literal('command'),
      value: z.array(commandPatternSchema).min(1).max(64),
    })
    .strict(),
  z
    .object({
      path: jsonPointerSchema,
      op: z.literal('path'),
      value: pathGlobSchema,
      base: absolutePathSchema.optional(),
    })
    .strict(),
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
    /** What the rule yields when the gate cannot tell whether it matches. */
    uncertain: z.enum(['deny', 'require_approval']).optional(),
  })
  .strict()
  .refine((rule) => rule.verdict !== 'allow' || !hasPipelinePattern(rule), {
    error:
      'an allow covers commands one by one: pipeline patterns ("|") are for deny and require_approval',
    path: ['match', 'args'],
  });
export type Rule = z.infer<typeof ruleSchema>;

function hasPipelinePattern(rule: { match: { args?: ArgPredicate[] } }): boolean {
  return (rule.match.args ?? []).some(
    (p) => p.op === 'command' && p.value.some((pattern) => stagesOf(pattern).length > 1),
  );
}

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

function sameJson(a: unknown, b: unknown): boolean {
  if (a === undefined || b === undefined) return false;
  return canonicalJson(a) === canonicalJson(b);
}

/** Command lines analysed once per evaluation, whatever the number of rules reading them. */
type Analyses = Map<string, CommandAnalysis>;

function analysed(line: string, analyses: Analyses): CommandAnalysis {
  let analysis = analyses.get(line);
  if (!analysis) {
    analysis = analyseCommand(line);
    analyses.set(line, analysis);
  }
  return analysis;
}

function predicateOutcome(
  predicate: ArgPredicate,
  args: unknown,
  mode: CommandMode,
  analyses: Analyses,
): MatchOutcome {
  const value = resolveJsonPointer(args, parseJsonPointer(predicate.path));
  const holds = (yes: boolean): MatchOutcome => (yes ? 'match' : 'no');
  switch (predicate.op) {
    case 'exists':
      return holds(value !== undefined);
    case 'eq':
      return holds(sameJson(value, predicate.value));
    case 'in':
      return holds(predicate.value.some((candidate) => sameJson(value, candidate)));
    case 'prefix':
      return holds(typeof value === 'string' && value.startsWith(predicate.value));
    case 'glob':
      return holds(typeof value === 'string' && wordGlobMatches(predicate.value, value));
    case 'path':
      return pathOutcome(predicate.value, value, predicate.base);
    case 'command':
      if (typeof value !== 'string') return 'no';
      return commandOutcome(predicate.value, analysed(value, analyses), mode);
  }
}

/**
 * Whether a rule matches a call: surely, surely not, or uncertain. An allow reads a command line
 * as covered only when every command in it matches; deny and require_approval when any does.
 */
function ruleOutcome(rule: Rule, input: PolicyInput, analyses: Analyses = new Map()): MatchOutcome {
  const { match } = rule;
  if (match.tool !== undefined && !wordGlobMatches(match.tool, input.tool)) return 'no';
  if (match.class !== undefined && match.class !== input.class) return 'no';
  if (match.effect !== undefined && match.effect !== input.effect) return 'no';
  const mode: CommandMode = rule.verdict === 'allow' ? 'every' : 'any';
  return allOf((match.args ?? []).map((p) => predicateOutcome(p, input.arguments, mode, analyses)));
}

/** An uncertain rule never allows: it yields its `uncertain` verdict, deny unless it says so. */
function uncertainVerdict(rule: Rule): Verdict {
  return rule.uncertain ?? (rule.verdict === 'require_approval' ? 'require_approval' : 'deny');
}

/**
 * First matching rule wins, an uncertain one with its `uncertain` verdict; no match gives the
 * policy's default.
 */
export function evaluatePolicy(
  policy: Pick<PolicyBody, 'rules' | 'default'>,
  input: PolicyInput,
): PolicyVerdict {
  const analyses: Analyses = new Map();
  for (const rule of policy.rules) {
    const outcome = ruleOutcome(rule, input, analyses);
    if (outcome === 'match') return { verdict: rule.verdict, rule_id: rule.id };
    if (outcome === 'uncertain') return { verdict: uncertainVerdict(rule), rule_id: rule.id };
  }
  return { verdict: policy.default, rule_id: null };
}
