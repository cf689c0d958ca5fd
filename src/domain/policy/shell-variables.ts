import { scanOptions, type OptionSpec } from './shell-options.js';
import { wordText, type ShellWord } from './shell-words.js';

/**
 * What a builtin that sets variables means for the analysis: whether it sets any (what follows
 * in the line may then behave differently), and why setting them can run code, or null.
 */
interface VariableEffect {
  sets: boolean;
  opaque: string | null;
}

const none: VariableEffect = { sets: false, opaque: null };
const sets: VariableEffect = { sets: true, opaque: null };
const runs = (why: string): VariableEffect => ({ sets: true, opaque: why });

const identifier = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Bash expands these when it prompts or traces (`set -x` prints PS4), running any `$(...)`. */
const promptVariable = /^(PS[0-4]|PROMPT_COMMAND)$/;

/** Bash evaluates a subscript in a name (`a[$(cmd)]`): a name must be a plain identifier. */
function evaluatedName(name: string | undefined): string | null {
  return name !== undefined && identifier.test(name) ? null : 'a variable name the shell evaluates';
}

/** Why setting a variable so named can run code, or null. */
export function riskyName(name: string | undefined): string | null {
  if (name !== undefined && promptVariable.test(name))
    return `${name}, whose value the shell expands as it traces`;
  return evaluatedName(name);
}

interface NamingSpec {
  options: OptionSpec;
  /** Options whose value names a variable (`printf -v NAME`). */
  nameOptions?: string;
  /** Which operands are names: all of them, or the one at an index (`getopts OPTS NAME`). */
  names: 'all' | number | 'none';
  /** An option whose value is code the builtin runs (`mapfile -C callback`). */
  callback?: string;
  /** It removes the variables it names rather than setting them. */
  removes?: boolean;
}

const readArray: NamingSpec = {
  options: { flags: 't', valued: 'dnOsuCc' },
  names: 'all',
  callback: 'C',
};

/** Builtins reading their options as getopt does, and which of their words name variables. */
const namingBuiltins = new Map<string, NamingSpec>(
  Object.entries({
    printf: { options: { valued: 'v' }, nameOptions: 'v', names: 'none' },
    read: { options: { flags: 'ers', valued: 'adinNptu' }, nameOptions: 'a', names: 'all' },
    mapfile: readArray,
    readarray: readArray,
    wait: { options: { flags: 'fn', valued: 'p' }, nameOptions: 'p', names: 'none' },
    unset: { options: { flags: 'fvn' }, names: 'all', removes: true },
    getopts: { options: {}, names: 1 },
  } satisfies Record<string, NamingSpec>),
);

function naming(name: string, spec: NamingSpec, args: readonly ShellWord[]): VariableEffect {
  const scanned = scanOptions(args, spec.options);
  if (!scanned.ok) return runs(`${name} with ${scanned.reason}`);
  if (spec.callback && scanned.seen.has(spec.callback)) return runs(`${name} runs a callback`);
  const named = Array.from(spec.nameOptions ?? '').filter((o) => scanned.seen.has(o));
  const names = [
    ...named.map((o) => scanned.seen.get(o)),
    ...(spec.names === 'all' ? scanned.rest.map(wordText) : []),
    ...(typeof spec.names === 'number' ? [wordText(scanned.rest[spec.names])] : []),
  ];
  const risky = names.map(spec.removes ? evaluatedName : riskyName).find((why) => why !== null);
  if (risky) return runs(`${name} setting ${risky}`);
  return name === 'printf' && named.length === 0 ? none : sets;
}

/** `declare`, `local`, … : `-i` and `-n` evaluate values, and `x=(…)` is parsed again as code. */
function declaration(name: string, args: readonly ShellWord[]): VariableEffect {
  let operands = false;
  for (const text of args.map(wordText)) {
    if (text === undefined) return runs(`${name} with a word only the shell can read`);
    if (/^[-+]/.test(text)) {
      if (/^[-+][A-Za-z]*[in]/.test(text)) return runs(`${name} ${text} evaluates what it sets`);
      continue;
    }
    operands = true;
    const [, variable, value] = /^([^=+]*)(?:\+?=(.*))?$/s.exec(text) ?? [];
    const risky = riskyName(variable);
    if (risky) return runs(`${name} setting ${risky}`);
    if (value?.startsWith('(')) return runs(`${name} with an array it parses again as code`);
  }
  return operands ? sets : none;
}

const declarations = new Set(['declare', 'typeset', 'local', 'export', 'readonly']);

/** `set -k` (`-o keyword`) makes every later `NAME=value` word a setting, not an argument. */
export function keywordOption(options: readonly ShellWord[]): boolean {
  return options.some((w) => !w.known || /^[-+][A-Za-z]*k/.test(w.value) || w.value === 'keyword');
}

/** Whether the builtin `name` sets variables, and whether doing so can run code. */
export function variableEffect(name: string, args: readonly ShellWord[]): VariableEffect {
  if (declarations.has(name)) return declaration(name, args);
  if (name === 'set') return keywordOption(args) ? sets : none;
  // `printf "$x"` alone prints; an unknown first word with more after it may be `-v NAME`.
  const [first] = args;
  if (name === 'printf' && first && !first.known && args.length === 1 && !first.splits) return none;
  const spec = namingBuiltins.get(name);
  if (spec) return naming(name, spec, args);
  if (name === 'test' || name === '[') {
    const texts = args.map(wordText);
    const at = texts.indexOf('-v');
    const risky = at >= 0 ? evaluatedName(texts[at + 1]) : null;
    if (risky) return runs(`${name} -v on ${risky}`);
  }
  return none;
}
