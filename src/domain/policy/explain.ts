/**
 * What a rule that matched a call looked at, in the policy's own words: the tool glob, class and
 * effect it named, and each argument predicate with, for `command`, the patterns a command of the
 * line matched. Only the policy's text: never the call's argument values, so the ledger may keep it.
 */
import { commandOutcome } from './command-match.js';
import { parseJsonPointer, resolveJsonPointer } from './json-pointer.js';
import type { ArgPredicate, PolicyInput, Rule } from './policy.js';
import { analyseCommand } from './shell-command.js';

/** The ledger keeps a bounded text. */
const longest = 2_000;

function commandPatternsMatched(predicate: ArgPredicate & { op: 'command' }, args: unknown) {
  const line = resolveJsonPointer(args, parseJsonPointer(predicate.path));
  if (typeof line !== 'string') return [];
  const analysis = analyseCommand(line);
  return predicate.value.filter(
    (pattern) => commandOutcome([pattern], analysis, 'any') === 'match',
  );
}

function predicateText(predicate: ArgPredicate, args: unknown): string {
  const where = `${predicate.path || '""'} ${predicate.op}`;
  switch (predicate.op) {
    case 'exists':
      return where;
    case 'command': {
      const matched = commandPatternsMatched(predicate, args);
      const shown = matched.length > 0 ? matched : predicate.value;
      return `${where} ${shown.map((pattern) => JSON.stringify(pattern)).join(' or ')}`;
    }
    case 'path':
      return `${where} ${JSON.stringify(predicate.value)}${predicate.base ? ` from ${predicate.base}` : ''}`;
    default:
      return `${where} ${JSON.stringify(predicate.value)}`;
  }
}

/** The matched rule's conditions, one per line; `match all` for a rule with none. */
export function matchedConditions(rule: Rule, input: PolicyInput): string {
  const { match } = rule;
  const lines = [
    ...(match.tool === undefined ? [] : [`tool ${JSON.stringify(match.tool)}`]),
    ...(match.class === undefined ? [] : [`class ${match.class}`]),
    ...(match.effect === undefined ? [] : [`effect ${match.effect}`]),
    ...(match.args ?? []).map((predicate) => predicateText(predicate, input.arguments)),
  ];
  const text = lines.length > 0 ? lines.join('\n') : 'match all';
  return text.length > longest ? `${text.slice(0, longest - 1)}…` : text;
}
