/**
 * Standing approvals: "approve, and allow the same for this run". A grant's scope is offered by
 * the gate, never written by the approver: the same tool with the same value at the arguments
 * that identify the call, or for `Bash` a `command` pattern built from the parsed commands. A
 * grant covers a later call only where an allow rule of that scope would surely match.
 */
import { analyseCommand, type SimpleCommand } from '../policy/shell-command.js';
import { ruleOutcome, type ArgPredicate, type PolicyInput } from '../policy/policy.js';
import { anyWords } from '../policy/command-match.js';
import { mayDecide, type Authority } from '../gate/approval.js';

export interface GrantScope {
  tool: string;
  args: ArgPredicate[];
}

/** Arguments that say which file, page or search a call acts on. */
const identifyingArguments = ['file_path', 'notebook_path', 'path', 'url', 'pattern', 'query'];

const isPlainWord = (word: string) => !word.startsWith('-') && !word.includes('=');

/** `npm test **`: the program, its subcommand when it has a plain one, then any arguments. */
function commandPattern(command: SimpleCommand): string[] | undefined {
  // Code the gate cannot see, a changed environment or a written file: an allow never covers it.
  if (
    !command.program.known ||
    command.opaque !== null ||
    command.environment ||
    command.writesFile
  )
    return undefined;
  const [first] = command.args;
  const sub = first?.known && isPlainWord(first.value) ? [first.value] : [];
  const pattern = [command.program.value, ...sub];
  // A word that reads as a glob would cover more than what the approver saw: nothing offered.
  if (pattern.some((word) => /[*?[\]\\{}]/.test(word))) return undefined;
  return [...pattern, anyWords];
}

function bashScope(line: string): GrantScope | undefined {
  const analysis = analyseCommand(line);
  // What the gate is unsure of, it does not offer to allow again unseen.
  if (analysis.doubt !== null || analysis.allowDoubt !== null) return undefined;
  const patterns = analysis.commands
    .filter((c) => c.role !== 'transparent-wrapper')
    .map(commandPattern);
  if (patterns.length === 0 || patterns.some((p) => p === undefined)) return undefined;
  const unique = [...new Map(patterns.map((p) => [JSON.stringify(p), p as string[]])).values()];
  return { tool: 'Bash', args: [{ path: '/command', op: 'command', value: unique }] };
}

/** The scope the gate offers for a standing approval of this call, if any. */
export function offeredScope(tool: string, args: Record<string, unknown>): GrantScope | undefined {
  if (tool === 'Bash')
    return typeof args.command === 'string' ? bashScope(args.command) : undefined;
  const keys = identifyingArguments.filter((key) => args[key] !== undefined);
  // A call that names nothing identifying is the same call only with the same arguments.
  if (keys.length === 0) return { tool, args: [{ path: '', op: 'eq', value: args }] };
  return {
    tool,
    args: keys.map((key) => ({ path: `/${key}`, op: 'eq' as const, value: args[key] })),
  };
}

/** The scope as a person reads it: `Bash: npm test **`, `Write: file_path = /repo/a.yaml`. */
export function scopeText(scope: GrantScope): string {
  const parts = scope.args.map((predicate) => {
    if (predicate.op === 'command') return predicate.value.map((p) => p.join(' ')).join(' ; ');
    if (predicate.op === 'eq')
      return predicate.path === ''
        ? 'exactly these arguments'
        : `${predicate.path.slice(1)} = ${JSON.stringify(predicate.value)}`;
    return predicate.op;
  });
  return `${scope.tool}: ${parts.join(', ')}`;
}

export interface ActiveGrant {
  id: string;
  scope: GrantScope;
  granted_by: string;
  granted_by_name: string;
  /** The grantor's membership now: a grant lives no longer than its grantor's authority. */
  grantor: { id: string; workspace_id: string; role: string; status: string };
}

/**
 * The first grant that covers a call. Its grantor must still have authority over the call: a
 * personal connection's call is covered only by its owner's grant, whatever anyone's role.
 */
export function coveringGrant(
  grants: readonly ActiveGrant[],
  call: PolicyInput & {
    authority: { workspace_id: string; authority: Authority; owner_user_id: string | null };
  },
): ActiveGrant | undefined {
  return grants.find(
    (grant) =>
      grant.scope.tool === call.tool &&
      mayDecide(call.authority, grant.grantor) &&
      ruleOutcome({ id: 'grant', match: { args: grant.scope.args }, verdict: 'allow' }, call) ===
        'match',
  );
}
