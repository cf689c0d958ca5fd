import { scanOptions, type OptionSpec } from './shell-options.js';
import { keywordOption, variableEffect } from './shell-variables.js';
import { knownWord, unknownWord, wordText, type ShellWord } from './shell-words.js';

/** What running a program means for the analysis. */
type Invocation =
  /** An ordinary program: its words are what a pattern sees; a builtin may set variables. */
  | { kind: 'program'; setsVariables: boolean }
  /** It runs code the gate cannot see (eval, a script file, an option it does not know). */
  | { kind: 'opaque'; reason: string }
  /**
   * It runs `command` (null: nothing further). A transparent wrapper changes neither who runs
   * the command nor its environment, so an allow need not name it.
   */
  | {
      kind: 'wrapper';
      transparent: boolean;
      /** It sets variables for the command or changes its directory (`env -C`). */
      environment: boolean;
      /** It writes a file named in its options (`time -o file`). */
      writes: boolean;
      command: ShellWord[] | null;
    }
  /** A shell running a command string: analysed like the line itself, in its dialect. */
  | { kind: 'shell'; transparent: boolean; script: string; dialect: ShellDialect };

/**
 * How a shell reads its command string: bash, or a POSIX shell (dash is Debian's `sh`), which
 * reads bash's own syntax (`$'…'`, `[[ ]]`, `&>`) differently and may find other commands in it.
 */
export type ShellDialect = 'bash' | 'posix';

const opaque = (reason: string): Invocation => ({ kind: 'opaque', reason });

interface WrapperSpec {
  options: OptionSpec;
  transparent: boolean;
  /** Operands in front of the command (timeout's duration). */
  operands?: number;
  /** Options after which nothing runs (`command -v`). */
  inspectOnly?: string;
  /** `NAME=value` words in front of the command set its environment (`sudo FOO=1 cmd`). */
  assignments?: boolean;
  /** Options whose value is a file it writes. */
  writes?: string;
}

const wrappers = new Map<string, WrapperSpec>(
  Object.entries({
    sudo: {
      options: {
        flags: 'AbEHknPS',
        valued: 'ugpCDrtTUR',
        long: ['askpass', 'background', 'preserve-env', 'set-home', 'reset-timestamp'],
        longValued: ['user', 'group', 'prompt', 'close-from', 'chdir', 'role', 'type', 'chroot'],
      },
      transparent: false,
      assignments: true,
    },
    doas: { options: { flags: 'n', valued: 'u' }, transparent: false },
    nice: {
      options: { valued: 'n', longValued: ['adjustment'], numeric: true },
      transparent: true,
    },
    nohup: { options: {}, transparent: true },
    timeout: {
      options: {
        flags: 'v',
        valued: 'sk',
        long: ['preserve-status', 'foreground', 'verbose'],
        longValued: ['signal', 'kill-after'],
      },
      transparent: true,
      operands: 1,
    },
    time: {
      options: { flags: 'pvaq', valued: 'of', long: ['portability', 'verbose', 'append', 'quiet'] },
      transparent: true,
      writes: 'o',
    },
    command: { options: { flags: 'pvV' }, transparent: true, inspectOnly: 'vV' },
    builtin: { options: {}, transparent: true },
    exec: { options: { flags: 'cl', valued: 'a' }, transparent: true },
    stdbuf: {
      options: { valued: 'ioe', longValued: ['input', 'output', 'error'] },
      transparent: true,
    },
  } satisfies Record<string, WrapperSpec>),
);

/** How many words in front are environment settings: env and sudo take any word with a `=`. */
function assignmentCount(words: readonly ShellWord[]): number {
  let i = 0;
  while (wordText(words[i])?.includes('=')) i += 1;
  return i;
}

function wrapper(spec: WrapperSpec, args: readonly ShellWord[]): Invocation {
  const scanned = scanOptions(args, spec.options);
  if (!scanned.ok) return opaque(scanned.reason);
  const inspectOnly = [...scanned.seen.keys()].some((o) => spec.inspectOnly?.includes(o));
  const rest = scanned.rest.slice(spec.operands ?? 0);
  const settings = spec.assignments ? assignmentCount(rest) : 0;
  const command = rest.slice(settings);
  return {
    kind: 'wrapper',
    transparent: spec.transparent,
    environment: settings > 0,
    writes: Array.from(spec.writes ?? '').some((o) => scanned.seen.has(o)),
    command: inspectOnly || command.length === 0 ? null : command,
  };
}

/** `env [-i] [-u NAME] [NAME=value]… [command]`; `-S` splits a string: the gate cannot follow. */
function env(args: readonly ShellWord[]): Invocation {
  const scanned = scanOptions(args, {
    flags: 'i0v',
    valued: 'uC',
    long: ['ignore-environment', 'null', 'debug'],
    longValued: ['unset', 'chdir'],
    dash: true,
  });
  if (!scanned.ok) return opaque(scanned.reason);
  const i = assignmentCount(scanned.rest);
  const command = scanned.rest.slice(i);
  // `env -C dir cmd` is `cd dir && cmd`: an allow must cover the change of directory.
  const environment = i > 0 || scanned.seen.has('C') || scanned.seen.has('chdir');
  return {
    kind: 'wrapper',
    transparent: !environment,
    environment,
    writes: false,
    command: command.length === 0 ? null : command,
  };
}

/** `xargs` runs its command with arguments read from input: words the gate cannot know. */
function xargs(args: readonly ShellWord[]): Invocation {
  const scanned = scanOptions(args, {
    flags: '0oprtx',
    valued: 'adEILnPs',
    attached: 'eil',
    long: ['null', 'open-tty', 'interactive', 'no-run-if-empty', 'verbose', 'exit', 'replace'],
    longValued: ['arg-file', 'delimiter', 'eof', 'max-lines', 'max-args', 'max-procs', 'max-chars'],
  });
  if (!scanned.ok) return opaque(scanned.reason);
  const replace = replacements(scanned.seen);
  if (replace === null) return opaque('an xargs replacement string only the shell can read');
  const given = scanned.rest.length > 0 ? scanned.rest : [knownWord('echo')];
  const replaced = (w: ShellWord) => w.known && replace.some((r) => w.value.includes(r));
  const command =
    replace.length === 0
      ? [...given, unknownWord(true)]
      : given.map((w) => (replaced(w) ? unknownWord(false) : w));
  return { kind: 'wrapper', transparent: true, environment: false, writes: false, command };
}

/**
 * The strings `-I R`, `-iR` or `--replace=R` name (`-i` and `--replace` alone: `{}`); the last
 * one given wins, so a word holding any of them may be replaced. Null when the gate cannot read
 * one, or one is empty.
 */
function replacements(seen: ReadonlyMap<string, string | undefined>): string[] | null {
  const given = [
    ...(seen.has('I') ? [seen.get('I')] : []),
    ...(seen.has('i') ? [seen.get('i') || '{}'] : []),
    ...(seen.has('replace') ? [seen.get('replace') ?? '{}'] : []),
  ];
  return given.every((r): r is string => typeof r === 'string' && r !== '') ? given : null;
}

/** Shells whose language the parser reads; `-c` strings are analysed in turn. */
const shells = new Map<string, ShellDialect>([
  ['bash', 'bash'],
  ['sh', 'posix'],
  ['dash', 'posix'],
  ['ash', 'posix'],
]);

function shell(dialect: ShellDialect, args: readonly ShellWord[]): Invocation {
  const scanned = scanOptions(
    // `+o name` is an option like `-o name`.
    args.map((w) =>
      w.known && /^\+[A-Za-z]/.test(w.value) ? knownWord(`-${w.value.slice(1)}`) : w,
    ),
    {
      flags: 'abcefhkmnprtuvxBCEHPTl',
      valued: 'oO',
      long: ['login', 'noprofile', 'norc', 'posix', 'noediting', 'restricted', 'verbose'],
    },
  );
  if (!scanned.ok) return opaque(`a shell with ${scanned.reason}`);
  if (!scanned.seen.has('c')) return opaque('a shell reading a script the gate cannot see');
  if (keywordOption(args.slice(0, args.length - scanned.rest.length)))
    return opaque('a shell with -k, which takes NAME=value words anywhere as settings');
  const script = scanned.rest[0];
  if (!script?.known) return opaque('a shell command string only the shell can read');
  return { kind: 'shell', transparent: true, script: script.value, dialect };
}

/**
 * `su [options] [user] -c command`: su reorders its arguments, so look at all of them. The last
 * command given is the one run, and the shell is the user's unless `-s` or `-m` picks another.
 */
function su(args: readonly ShellWord[]): Invocation {
  const scripts: (string | undefined)[] = [];
  for (let i = 0; i < args.length; i += 1) {
    const text = wordText(args[i]);
    if (text === undefined) return opaque('an su argument only the shell can read');
    const inline = /^--(?:session-)?command=(.*)$/s.exec(text)?.[1];
    if (inline !== undefined) scripts.push(inline);
    else if (['-c', '--command', '--session-command'].includes(text))
      scripts.push(wordText(args[(i += 1)]));
    else if (/^(-[^-]*[smp]|--shell|--preserve-environment)/.test(text))
      return opaque('su with a shell chosen by its options');
  }
  const [script, ...more] = scripts;
  if (script === undefined || more.length > 0)
    return opaque('su running a shell the gate cannot see');
  return { kind: 'shell', transparent: false, script, dialect: 'posix' };
}

/** Programs that run code given to them in a form the gate does not analyse. */
const runsHiddenCode = new Set(
  [
    'eval source . alias trap fc enable bind complete compgen let hash',
    'zsh ksh mksh fish csh tcsh pwsh busybox toybox',
    'setsid chroot unshare nsenter taskset ionice chrt runuser pkexec sg newgrp',
    'strace ltrace valgrind flock watch parallel script systemd-run at batch ssh',
    'gdb lldb perf rr catchsegv firejail bwrap proot fakeroot faketime setpriv prlimit numactl',
    'setarch linux32 linux64 cgexec chpst runcon systemd-nspawn machinectl run0 daemonize',
    'start-stop-daemon unbuffer expect tmux screen dtach xvfb-run dbus-run-session ssh-agent',
    'torsocks proxychains proxychains4 cpulimit ifne chronic entr sem tsp',
  ]
    .join(' ')
    .split(' '),
);

/** Options with which a program runs a command on what it finds. */
const commandOptions = new Map<string, RegExp>([
  ['find', /^-(exec|execdir|ok|okdir)$/],
  ['fd', /^(-[^-]*[xX]|--exec)/],
  ['fdfind', /^(-[^-]*[xX]|--exec)/],
  ['rg', /^--pre(=|$)/],
]);

/** How the program named `name` (already reduced to its last path segment) treats its arguments. */
export function classifyInvocation(name: string, args: readonly ShellWord[]): Invocation {
  const spec = wrappers.get(name);
  if (spec) return wrapper(spec, args);
  if (name === 'env') return env(args);
  if (name === 'xargs') return xargs(args);
  if (name === 'su') return su(args);
  const dialect = shells.get(name);
  if (dialect) return shell(dialect, args);
  if (runsHiddenCode.has(name)) return opaque(`${name} runs code the gate cannot see`);
  const runsCommand = commandOptions.get(name);
  if (runsCommand && args.some((w) => !w.known || runsCommand.test(w.value)))
    return opaque(`${name} running a command`);
  const variables = variableEffect(name, args);
  if (variables.opaque !== null) return opaque(variables.opaque);
  return { kind: 'program', setsVariables: variables.sets };
}
