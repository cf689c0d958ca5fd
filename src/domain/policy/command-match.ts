import { matchesEveryWord, wordGlobMatches } from './glob.js';
import { allOf, anyOf, capAt, type MatchOutcome } from './match-outcome.js';
import { normaliseAbsolutePath } from './path-match.js';
import type { CommandAnalysis, SimpleCommand } from './shell-command.js';
import type { ShellWord } from './shell-words.js';

/**
 * A command pattern is a list of word globs: the program, then its arguments. `**` stands for
 * any number of arguments, and `|` separates the stages of a pipeline.
 */
type CommandPattern = readonly string[];

/** How a rule reads a line: an allow must cover every command, a deny needs any one. */
export type CommandMode = 'every' | 'any';

export const anyWords = '**';
export const pipe = '|';

export function stagesOf(pattern: CommandPattern): string[][] {
  const stages: string[][] = [[]];
  for (const word of pattern) {
    if (word === pipe) stages.push([]);
    else stages[stages.length - 1]?.push(word);
  }
  return stages;
}

const systemDirectories = new Set([
  '/bin',
  '/sbin',
  '/usr/bin',
  '/usr/sbin',
  '/usr/local/bin',
  '/usr/local/sbin',
]);

/**
 * The name a pattern sees (`/bin/rm`, `\rm` and `"rm"` are `rm`), and whether it surely is that
 * program: a bare name, or one in a system directory. `./npm` may be anything.
 */
export function programIdentity(path: string): { name: string; certain: boolean } {
  const slash = path.lastIndexOf('/');
  if (slash < 0) return { name: path, certain: true };
  const directory = path.startsWith('/') ? normaliseAbsolutePath(path.slice(0, slash)) : '';
  return { name: path.slice(slash + 1), certain: systemDirectories.has(directory) };
}

type Reach = 'certain' | 'possible';

/** The pattern positions reachable without consuming a word. */
function closure(globs: readonly string[], states: boolean[]): boolean[] {
  for (let i = 0; i < globs.length; i += 1)
    if (states[i] && globs[i] === anyWords) states[i + 1] = true;
  return states;
}

/**
 * One word further. `certain`: a word the gate does not know is consumed only by what matches
 * every value (`**`, or `*` for exactly one word). `possible`: it may be anything.
 */
function step(globs: readonly string[], states: boolean[], word: ShellWord, reach: Reach) {
  const next = new Array<boolean>(globs.length + 1).fill(false);
  for (let i = 0; i < globs.length; i += 1) {
    if (!states[i]) continue;
    const glob = globs[i] as string;
    if (glob === anyWords) next[i] = true;
    else if (word.known) next[i + 1] ||= wordGlobMatches(glob, word.value);
    else if (reach === 'possible' && word.splits) next.fill(true, i);
    else if (reach === 'possible' || (!word.splits && matchesEveryWord(glob))) next[i + 1] = true;
  }
  // A word that may split may also vanish (`$unset`, `"$@"`): past the last glob, it may be none.
  const vanishes = reach === 'possible' && !word.known && word.splits;
  if (vanishes && states[globs.length]) next[globs.length] = true;
  return closure(globs, next);
}

function reaches(globs: readonly string[], words: readonly ShellWord[], reach: Reach): boolean {
  let states = closure(globs, [true]);
  for (const word of words) {
    states = step(globs, states, word, reach);
    if (!states.includes(true)) return false;
  }
  return states[globs.length] === true;
}

/** Arguments against argument globs: sure, impossible, or depending on what the shell expands. */
function argumentsOutcome(globs: readonly string[], args: readonly ShellWord[]): MatchOutcome {
  if (reaches(globs, args, 'certain')) return 'match';
  return reaches(globs, args, 'possible') ? 'uncertain' : 'no';
}

/**
 * One simple command against one stage of a pattern. A command that runs code the gate cannot
 * see (`eval …`, `bash script.sh`) surely matches a deny naming it, and may match any other.
 */
function stageOutcome(
  command: SimpleCommand,
  stage: readonly string[],
  mode: CommandMode,
): MatchOutcome {
  const [programGlob, ...argumentGlobs] = stage;
  if (!command.program.known || programGlob === undefined) return 'uncertain';
  const identity = programIdentity(command.program.value);
  const own = wordGlobMatches(programGlob, identity.name)
    ? argumentsOutcome(argumentGlobs, command.args)
    : 'no';
  if (mode === 'any') return command.opaque === null || own === 'match' ? own : 'uncertain';
  if (command.writesFile) return 'no';
  const sure = identity.certain && !command.environment && command.opaque === null;
  return sure ? own : capAt(own, 'uncertain');
}

function comparePositions(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i += 1) {
    const difference = (a[i] ?? 0) - (b[i] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}

// Every rule with a pipeline pattern reads the same analysed line: group it once.
const grouped = new WeakMap<readonly SimpleCommand[], SimpleCommand[][][]>();

function pipelines(commands: readonly SimpleCommand[]): SimpleCommand[][][] {
  let found = grouped.get(commands);
  if (!found) {
    found = groupPipelines(commands);
    grouped.set(commands, found);
  }
  return found;
}

/** Each pipeline's commands, grouped by position in the order data flows through them. */
function groupPipelines(commands: readonly SimpleCommand[]): SimpleCommand[][][] {
  const byPipeline = new Map<number, SimpleCommand[]>();
  for (const command of commands) {
    const members = byPipeline.get(command.pipeline) ?? [];
    members.push(command);
    byPipeline.set(command.pipeline, members);
  }
  return [...byPipeline.values()].map((members) => {
    const stages: SimpleCommand[][] = [];
    for (const command of members.sort((a, b) => comparePositions(a.position, b.position))) {
      const last = stages[stages.length - 1];
      const together = last?.[0] && comparePositions(last[0].position, command.position) === 0;
      if (last && together) last.push(command);
      else stages.push([command]);
    }
    return stages;
  });
}

/** A command that runs code the gate cannot see may run a whole pipeline by itself. */
const runsUnseenCode = (command: SimpleCommand) =>
  command.opaque !== null || !command.program.known;

/**
 * A pipeline pattern holds when its stages appear in the order data flows through one pipeline,
 * others between: through pipes, and through substitutions into or out of a command.
 */
function pipelineOutcome(stages: readonly string[][], commands: readonly SimpleCommand[]) {
  const inOrder = (accept: (o: MatchOutcome) => boolean) =>
    pipelines(commands).some((pipeline) => {
      let next = 0;
      for (const stage of pipeline) {
        const wanted = stages[next];
        if (wanted && stage.some((c) => accept(stageOutcome(c, wanted, 'any')))) next += 1;
      }
      return next === stages.length;
    });
  if (inOrder((o) => o === 'match')) return 'match';
  if (commands.some(runsUnseenCode)) return 'uncertain';
  return inOrder((o) => o !== 'no') ? 'uncertain' : 'no';
}

function anyCommandOutcome(patterns: readonly CommandPattern[], analysis: CommandAnalysis) {
  const found = anyOf(
    patterns.map((pattern) => {
      const stages = stagesOf(pattern);
      const [only] = stages;
      if (stages.length > 1 || !only) return pipelineOutcome(stages, analysis.commands);
      return anyOf(analysis.commands.map((command) => stageOutcome(command, only, 'any')));
    }),
  );
  return found === 'no' && analysis.doubt !== null ? 'uncertain' : found;
}

/** The commands an allow must cover: all but transparent wrappers that surely are themselves. */
function mustCover(command: SimpleCommand): boolean {
  if (command.role !== 'transparent-wrapper' || !command.program.known) return true;
  return !programIdentity(command.program.value).certain;
}

function everyCommandOutcome(patterns: readonly CommandPattern[], analysis: CommandAnalysis) {
  const single = patterns.map(stagesOf).flatMap((stages) => (stages.length === 1 ? stages : []));
  const units = analysis.commands.filter(mustCover);
  if (units.length === 0) return analysis.doubt === null ? 'no' : 'uncertain';
  const covered = allOf(
    units.map((command) => anyOf(single.map((stage) => stageOutcome(command, stage, 'every')))),
  );
  if (covered === 'no') return 'no';
  return analysis.doubt !== null || analysis.allowDoubt !== null ? 'uncertain' : covered;
}

/** The `command` operator over an analysed command line. */
export function commandOutcome(
  patterns: readonly CommandPattern[],
  analysis: CommandAnalysis,
  mode: CommandMode,
): MatchOutcome {
  return mode === 'any'
    ? anyCommandOutcome(patterns, analysis)
    : everyCommandOutcome(patterns, analysis);
}
