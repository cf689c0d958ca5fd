/**
 * What a standing approval covers. By default the call itself: the same tool and every argument
 * equal, but for the few the tool's list says change nothing. One wider scope is offered, only
 * when the approver picks it: a file tool's path with any content. No `Bash` scope is wider than
 * its line: the gate cannot read what a script's words reach (`npm test -- --import=…` runs code
 * the test runner loads), so "the same script with other words" is never offered.
 */
import { canonicalJson } from '../ledger/digest.js';
import type { MatchOutcome } from '../policy/match-outcome.js';
import { bashRefusal } from './bash-grants.js';

export type ScopeKind = 'exact' | 'any_content';
export const scopeKinds: readonly ScopeKind[] = ['exact', 'any_content'];

export interface GrantScope {
  kind: ScopeKind;
  tool: string;
  /**
   * The arguments a covered call holds, each equal, and no others: all of the approved call's
   * but the inert ones and those the kind leaves free.
   */
  arguments: Record<string, unknown>;
}

/** Per tool, the arguments that change nothing of what a call does. */
export const inertArguments: Readonly<Record<string, readonly string[]>> = {
  Bash: ['description', 'timeout'],
};

/** Per file tool, the argument naming its file and those holding what it writes there. */
export const fileTools: Readonly<Record<string, { path: string; content: readonly string[] }>> = {
  Write: { path: 'file_path', content: ['content'] },
  Edit: { path: 'file_path', content: ['old_string', 'new_string', 'replace_all'] },
  MultiEdit: { path: 'file_path', content: ['edits'] },
  NotebookEdit: {
    path: 'notebook_path',
    content: ['cell_id', 'new_source', 'cell_type', 'edit_mode'],
  },
};

/** The arguments a scope of this kind leaves free for this tool, the inert ones included. */
function freed(kind: ScopeKind, tool: string): Set<string> {
  const free = new Set(inertArguments[tool] ?? []);
  if (kind === 'any_content') for (const key of fileTools[tool]?.content ?? []) free.add(key);
  return free;
}

function without(args: Record<string, unknown>, free: Set<string>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(args).filter(([key]) => !free.has(key)));
}

const sameJson = (a: unknown, b: unknown) => canonicalJson(a) === canonicalJson(b);

/**
 * The scopes the gate offers for a standing approval of this call, the exact one first; none
 * for a `Bash` line it cannot read surely or that writes a file.
 */
export function offeredScopes(tool: string, args: Record<string, unknown>): GrantScope[] {
  const scope = (kind: ScopeKind): GrantScope => ({
    kind,
    tool,
    arguments: without(args, freed(kind, tool)),
  });
  if (tool === 'Bash') {
    const line = args.command;
    return typeof line !== 'string' || bashRefusal(line) !== null ? [] : [scope('exact')];
  }
  const file = fileTools[tool];
  const path = file && args[file.path];
  if (typeof path === 'string' && path.startsWith('/'))
    return [scope('exact'), scope('any_content')];
  return [scope('exact')];
}

/** The offered scope of this kind, if the gate offers one. */
export function offeredScope(
  tool: string,
  args: Record<string, unknown>,
  kind: ScopeKind = 'exact',
): GrantScope | undefined {
  return offeredScopes(tool, args).find((scope) => scope.kind === kind);
}

/**
 * Whether a scope covers a call: `match` only when surely. A call whose tool differs, or whose
 * arguments differ anywhere the scope does not leave free, is surely not covered.
 */
export function scopeOutcome(
  scope: GrantScope,
  call: { tool: string; arguments: Record<string, unknown> },
): MatchOutcome {
  if (scope.tool !== call.tool) return 'no';
  return sameJson(without(call.arguments, freed(scope.kind, call.tool)), scope.arguments)
    ? 'match'
    : 'no';
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A stored scope as this version of the gate reads it; an older shape covers nothing. */
export function isGrantScope(value: unknown): value is GrantScope {
  if (!isRecord(value)) return false;
  const { kind, tool, arguments: args, ...rest } = value;
  return (
    scopeKinds.includes(kind as ScopeKind) &&
    typeof tool === 'string' &&
    isRecord(args) &&
    Object.keys(rest).length === 0
  );
}
