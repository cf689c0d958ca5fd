/**
 * How a standing approval reads a `Bash` line: the same line again is offered only for a line
 * the gate reads surely and that writes no file it can see.
 */
import { programIdentity } from '../policy/command-match.js';
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
  // Programs whose own language or options write files (`awk '{print > "x"}'`, `split`).
  'awk',
  'gawk',
  'mawk',
  'busybox',
  'split',
  'csplit',
]);
const writingOptions = new Map<string, RegExp>([
  // A sed script's `w` command writes a file: any sed word holding a `w` is read as one.
  ['sed', /^(-[a-zA-Z]*i|--in-place)|[wW]/],
  ['find', /^-(exec|execdir|ok|okdir|delete|fprint|fprint0|fprintf|fls)$/],
  ['perl', /^-[a-zA-Z]*i/],
  [
    'curl',
    /^(-[a-zA-Z]*[oODc]|--output|--remote-name|--dump-header|--cookie-jar|--trace|--stderr|--etag-save|--hsts|--alt-svc)/,
  ],
  ['sort', /^(-[a-zA-Z]*o|--output)/],
]);

/** True when the command writes a file: a redirection, or a program or option that does. */
function writesAFile(command: SimpleCommand): boolean {
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
