/**
 * How a standing approval reads a `Bash` line. The same line again is offered only for a line
 * the gate reads surely and that writes no file; a wider scope, "the same script, any words after
 * `--`", only for one plain command of a program whose first word is a script or subcommand
 * that `--` ends (npm, pnpm, yarn, cargo), typed in plain words.
 */
import { programIdentity } from '../policy/command-match.js';
import type { MatchOutcome } from '../policy/match-outcome.js';
import { analyseCommand, type SimpleCommand } from '../policy/shell-command.js';

/**
 * Programs whose work is writing the files they are named (`tee /etc/x`, `cp a b`), and options
 * that make a program write one (`sed -i`, `curl -o`): a line running them is offered no grant.
 */
const writingPrograms = new Set([
  'tee',
  'dd',
  'sponge',
  'truncate',
  'touch',
  'cp',
  'mv',
  'install',
  'ln',
  'rsync',
  'scp',
  'wget',
  'tar',
  'unzip',
  'patch',
]);
const writingOptions = new Map<string, RegExp>([
  ['sed', /^(-[a-zA-Z]*i|--in-place)/],
  ['perl', /^-[a-zA-Z]*i/],
  ['curl', /^(-[a-zA-Z]*[oO]|--output|--remote-name)/],
  ['sort', /^(-[a-zA-Z]*o|--output)/],
]);

/** True when the command writes a file: a redirection, or a program or option that does. */
export function writesAFile(command: SimpleCommand): boolean {
  if (command.writesFile) return true;
  if (!command.program.known) return false;
  const name = programIdentity(command.program.value).name;
  if (writingPrograms.has(name)) return true;
  const option = writingOptions.get(name);
  return option !== undefined && command.args.some((a) => a.known && option.test(a.value));
}

/**
 * Why the gate offers no grant at all for this line, or null: what it cannot read surely (a
 * parse it doubts, a substitution, a variable, an environment set for a command) or a file it
 * writes. Such a line may be approved once, never again unseen.
 */
export function bashRefusal(line: string): string | null {
  const analysis = analyseCommand(line);
  if (analysis.doubt !== null) return `the gate is unsure of this line: ${analysis.doubt}`;
  if (analysis.allowDoubt !== null)
    return `the gate cannot read this line surely: ${analysis.allowDoubt}`;
  if (analysis.commands.length === 0) return 'the line runs nothing the gate can name';
  for (const command of analysis.commands) {
    if (!command.program.known || command.args.some((a) => !a.known))
      return 'a word of it is known only when it runs (a variable, a glob, a ~)';
    if (command.environment) return 'it sets variables or a directory for a command';
    if (writesAFile(command)) return 'it writes a file';
  }
  return null;
}

/**
 * Programs whose first plain word is a script or subcommand and whose words after `--` go to
 * that script's own program: the subcommands for which "any words after `--`" is offered. Make
 * is not here (`make test CC=…` changes the recipe), nor go (`go test -exec …`), nor any
 * interpreter, shell or wrapper.
 */
const scriptRunners: Record<string, { scripts: readonly string[]; named: readonly string[] }> = {
  npm: { scripts: ['test'], named: ['run', 'run-script'] },
  pnpm: { scripts: ['test'], named: ['run'] },
  yarn: { scripts: ['test'], named: ['run'] },
  cargo: { scripts: ['test', 'bench'], named: [] },
};

/** A line of plain words: no quote, `$`, glob, `~`, comment, redirection or separator. */
const plainLine = /^[A-Za-z0-9_./:=@%+,-]+(?: [A-Za-z0-9_./:=@%+,-]+)*$/;
const plainWord = /^[A-Za-z0-9_][A-Za-z0-9_.:@%+,-]*$/;

/**
 * The words a covered line repeats before `--` (program, subcommand, script, the approved
 * options), when the approved line is one plain command of a script runner; else undefined.
 */
export function scriptWords(line: string): string[] | undefined {
  if (!plainLine.test(line) || bashRefusal(line) !== null) return undefined;
  const words = line.split(' ');
  const [program, first, second] = words;
  const runner = program === undefined ? undefined : scriptRunners[program];
  if (!runner || first === undefined) return undefined;
  // Options before the subcommand (`npm --prefix x test`) change what it runs: never wider.
  const named = runner.named.includes(first);
  if (!runner.scripts.includes(first) && !named) return undefined;
  if (named && !(second !== undefined && plainWord.test(second))) return undefined;
  const analysis = analyseCommand(line);
  if (analysis.commands.length !== 1 || analysis.commands[0]?.role !== 'command') return undefined;
  const end = words.indexOf('--');
  return end < 0 ? words : words.slice(0, end);
}

/** A word after `--` naming a place outside the working tree: an absolute path, or `..`. */
const leavesTree = (word: string) =>
  /(^|[=:,])\//.test(word) || /(^|[=:,/])\.\.(\/|$|[=:,])/.test(word);

/**
 * Whether a line is the approved script with only other words after `--`, none of them naming a
 * place outside the working tree (`--outputFile=/etc/x`, `../x`): `match` when surely,
 * `uncertain` when it may be but the gate cannot be sure (a variable, a quote, a redirection, a
 * program that may be another), `no` when it surely is not.
 */
export function scriptOutcome(fixed: readonly string[], line: string): MatchOutcome {
  const analysis = analyseCommand(line);
  const [command, ...more] = analysis.commands;
  if (!command || more.length > 0) return 'no';
  if (command.writesFile || command.role !== 'command') return 'no';
  const words = [command.program, ...command.args];
  if (words.length < fixed.length) return words.every((w) => w.known) ? 'no' : 'uncertain';
  const prefix = words.slice(0, fixed.length);
  if (prefix.some((word, i) => word.known && word.value !== fixed[i])) return 'no';
  const rest = words.slice(fixed.length);
  if (rest[0]?.known && rest[0].value !== '--') return 'no';
  if (rest.some((word) => word.known && leavesTree(word.value))) return 'no';
  const sure =
    plainLine.test(line) &&
    analysis.doubt === null &&
    analysis.allowDoubt === null &&
    words.every((word) => word.known) &&
    command.program.known &&
    programIdentity(command.program.value).certain &&
    !command.environment &&
    command.opaque === null &&
    !writesAFile(command);
  return sure ? 'match' : 'uncertain';
}
