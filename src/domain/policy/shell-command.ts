import {
  parse,
  type ArithmeticExpression,
  type Assignment,
  type Command,
  type CommandExpansionPart,
  type CompoundCommand,
  type CompoundList,
  type DoubleQuotedChild,
  type ParameterExpansionPart,
  type ParsedScript,
  type Pipeline,
  type PipelineNode,
  type AndOr,
  type ProcessSubstitutionPart,
  type ArithmeticCommandExpansion,
  type Redirection,
  type Statement,
  type TestExpression,
  type Word,
  type WordPart,
} from 'unbash';
import { riskyName } from './shell-variables.js';
import { classifyInvocation, type ShellDialect } from './shell-wrappers.js';
import { knownWord, unknownWord, type ShellWord } from './shell-words.js';
import { GateError } from '../errors.js';

/**
 * One program the command line runs, with its words as far as the gate can know them. A
 * wrapper (`sudo rm x`) gives two: the wrapper with all its words, and the command it runs.
 */
export interface SimpleCommand {
  program: ShellWord;
  args: ShellWord[];
  /** A transparent wrapper changes neither the user nor the environment (`nice`, `timeout`). */
  role: 'command' | 'wrapper' | 'transparent-wrapper';
  /** Why it runs code the gate cannot see (`eval`, `bash script.sh`), or null. */
  opaque: string | null;
  /**
   * Variables are set for it (`FOO=1 cmd`, `env FOO=1 cmd`) or its directory changed
   * (`env -C dir cmd`): they can change what it does.
   */
  environment: boolean;
  /** A redirection writes a file (`> out`), other than /dev/null and its kin. */
  writesFile: boolean;
  /** Commands that data flows between share `pipeline`; `position` orders them (see Stage). */
  pipeline: number;
  position: readonly number[];
}

export interface CommandAnalysis {
  commands: readonly SimpleCommand[];
  /** Why no conclusion about this line is certain (a parse error, backticks, …), or null. */
  doubt: string | null;
  /** Why no allow can cover this line (a substitution, variables set), or null. */
  allowDoubt: string | null;
}

// Parsing is linear but not free, and every nested level reads its text again: both are bounded.
const limits = { length: 65_536, commands: 4096, depth: 8, wrappers: 16 };

/** Thrown to stop walking a line once it holds more commands than the gate analyses. */
class TooManyCommands extends GateError {
  readonly code = 'too_many_commands';
}

class Analysis {
  commands: SimpleCommand[] = [];
  doubt: string | null = null;
  allowDoubt: string | null = null;
  pipelines = 0;
  /** The line sets variables, and it starts a shell: that shell may run code held in them. */
  variables = false;
  shells = false;

  doubtAll(reason: string) {
    this.doubt ??= reason;
  }
  doubtAllow(reason: string) {
    this.allowDoubt ??= reason;
  }
  setVariables() {
    this.variables = true;
    this.doubtAllow('it sets variables for what follows');
  }
  add(command: SimpleCommand) {
    if (this.commands.length >= limits.commands) throw new TooManyCommands();
    this.commands.push(command);
  }
}

/**
 * Where a command sits in the flow of data. A stage of a pipeline is at `[index]`. The commands of
 * a substitution are in the pipeline of the command whose words hold it, at that command's
 * position, then -1 when their output feeds it (`$(…)`, `<(…)`) or 1 when it feeds them (`>(…)`),
 * then their own stage index. Positions compare as lists of numbers, a missing one counting as 0.
 */
interface Stage {
  pipeline: number;
  position: readonly number[];
}

/** Where the pipelines of a substitution are laid out: a pipeline and a position prefix. */
interface Lane {
  pipeline: number;
  prefix: readonly number[];
}

interface Context {
  analysis: Analysis;
  /** Shells and substitutions this code is nested in. */
  depth: number;
  /** The enclosing compound command's output goes to a file. */
  writes: boolean;
  /** Variables were set for the enclosing invocation (`env X=1 sh -c …`). */
  environment: boolean;
  /**
   * The stage an enclosing compound command or shell occupies (every command inside shares it),
   * or, while its words are read, the stage of the command holding them.
   */
  stage: Stage | null;
  /** Where a substitution being walked lays its pipelines, or null for pipelines of their own. */
  lane: Lane | null;
  dialect: ShellDialect;
}

/** The simple commands a shell command line runs, and what the gate cannot know about it. */
export function analyseCommand(line: string): CommandAnalysis {
  const analysis = new Analysis();
  if (line.includes('\0')) analysis.doubtAll('a NUL byte (shells drop it or stop there)');
  if (line.length > limits.length) {
    analysis.doubtAll('too long to analyse');
    return { commands: [], doubt: analysis.doubt, allowDoubt: null };
  }
  try {
    analyseSource(line, {
      analysis,
      depth: 0,
      writes: false,
      environment: false,
      stage: null,
      lane: null,
      dialect: 'bash',
    });
  } catch (error) {
    const tooMany = error instanceof TooManyCommands;
    analysis.doubtAll(tooMany ? 'too many commands to analyse' : 'the shell parser failed on it');
  }
  if (analysis.variables && analysis.shells) analysis.doubtAll(shellEnvironment);
  const { commands, doubt, allowDoubt } = analysis;
  return { commands, doubt, allowDoubt };
}

/** An odd number of backslashes ends the source: bash drops the last one, the parser keeps it. */
function endsInBackslash(source: string): boolean {
  let count = 0;
  while (source[source.length - 1 - count] === '\\') count += 1;
  return count % 2 === 1;
}

function analyseSource(source: string, ctx: Context) {
  // `$\⏎'…'` is `$'…'` to bash, which joins a continued line first; the parser does not.
  if (source.includes('$\\\n')) ctx.analysis.doubtAll('a $ continued on the next line');
  if (endsInBackslash(source)) ctx.analysis.doubtAll('a backslash at the very end');
  if (ctx.depth > limits.depth) ctx.analysis.doubtAll('code nested too deep');
  else walkScript(parse(source), ctx);
}

function walkScript(script: ParsedScript, ctx: Context) {
  const error = script.errors?.[0];
  if (error) ctx.analysis.doubtAll(`it does not parse: ${error.message}`);
  walkStatements(script.commands, ctx);
}

function walkStatements(statements: readonly Statement[], ctx: Context) {
  for (const statement of statements) walkNode(statement.command, ctx);
}

const walkList = (list: CompoundList, ctx: Context) => {
  walkStatements(list.commands, ctx);
};

function walkNode(node: PipelineNode | AndOr, ctx: Context): void {
  switch (node.type) {
    case 'Command':
      simpleCommand(node, ctx);
      break;
    case 'Pipeline':
      pipeline(node, ctx);
      break;
    case 'AndOr':
      for (const command of node.commands) walkNode(command, ctx);
      break;
    case 'Redirected':
      walkNode(node.command, { ...ctx, writes: redirections(node.redirects, ctx) });
      break;
    case 'Function':
    case 'Coproc':
      if (node.type === 'Coproc') bashOnly('coproc', ctx);
      // A function body is analysed as if it ran: calling it is just a name.
      walkBody(node.body, { ...ctx, stage: null });
      break;
    default:
      compound(node, ctx);
  }
}

function walkBody(body: CompoundList | PipelineNode, ctx: Context) {
  if (body.type === 'CompoundList') walkList(body, ctx);
  else walkNode(body, ctx);
}

function pipeline(node: Pipeline, ctx: Context) {
  if (node.operators.includes('|&')) bashOnly('|&', ctx);
  if (node.prefixes.some((p) => p.type === 'Time')) bashOnly('the time keyword', ctx);
  if (ctx.stage) {
    for (const command of node.commands) walkNode(command, ctx);
    return;
  }
  const lane = newLane(ctx);
  node.commands.forEach((command, index) => {
    walkNode(command, { ...ctx, stage: stageIn(lane, index) });
  });
}

function newLane(ctx: Context): Lane {
  return ctx.lane ?? { pipeline: ctx.analysis.pipelines++, prefix: [] };
}

const stageIn = (lane: Lane, index: number): Stage => ({
  pipeline: lane.pipeline,
  position: [...lane.prefix, index],
});

const bashCompounds: Partial<Record<CompoundCommand['type'], string>> = {
  TestCommand: '[[ ]]',
  ArithmeticCommand: '(( ))',
  ArithmeticFor: 'for (( ))',
  Select: 'select',
};

function compound(node: CompoundCommand, ctx: Context) {
  const bashOwn = bashCompounds[node.type];
  if (bashOwn) bashOnly(bashOwn, ctx);
  switch (node.type) {
    case 'If':
      walkList(node.clause, ctx);
      walkList(node.then, ctx);
      for (const elif of node.elif) {
        walkList(elif.clause, ctx);
        walkList(elif.then, ctx);
      }
      if (node.else) walkList(node.else, ctx);
      break;
    case 'For':
    case 'Select':
      for (const word of node.wordlist ?? []) wordOf(word, ctx);
      walkList(node.body, ctx);
      break;
    case 'ArithmeticFor':
      for (const part of [node.initialize, node.test, node.update]) if (part) arithmetic(part, ctx);
      walkList(node.body, ctx);
      break;
    case 'While':
      walkList(node.clause, ctx);
      walkList(node.body, ctx);
      break;
    case 'Subshell':
    case 'BraceGroup':
      walkList(node.body, ctx);
      break;
    case 'Case':
      wordOf(node.word, ctx);
      for (const item of node.items) {
        for (const word of item.pattern) wordOf(word, ctx);
        walkList(item.body, ctx);
      }
      break;
    case 'TestCommand':
      testExpression(node.expression, ctx);
      break;
    case 'ArithmeticCommand':
      if (node.expression) arithmetic(node.expression, ctx);
      else ctx.analysis.doubtAll('arithmetic it cannot parse');
      break;
  }
}

function simpleCommand(node: Command, outer: Context) {
  const stage = outer.stage ?? stageIn(newLane(outer), 0);
  // Its words are read at its stage: a substitution in them feeds it.
  const ctx = { ...outer, stage };
  const writes = redirections(node.redirects, ctx);
  const assignments = node.prefix.filter((p): p is Assignment => p.type === 'Assignment');
  for (const assignment of assignments) assignmentWord(assignment, ctx);
  // In POSIX mode settings in front of a special builtin (`BASH_ENV=x :`) outlive it.
  if (assignments.length > 0) ctx.analysis.variables = true;
  if (!node.name) {
    if (assignments.length > 0) ctx.analysis.setVariables();
    if (writes) ctx.analysis.doubtAllow('a redirection with no command writes a file');
    return;
  }
  const words = [node.name, ...node.args].map((arg) =>
    arg.type === 'Word' ? wordOf(arg, ctx) : assignmentWord(arg, ctx),
  );
  invoke(words, { environment: ctx.environment || assignments.length > 0, writes, stage }, ctx);
}

interface Facts {
  environment: boolean;
  writes: boolean;
  stage: Stage;
}

const programName = (path: string) => path.slice(path.lastIndexOf('/') + 1);

/** Records a program and, through the wrappers it knows, the commands it runs. */
function invoke(words: ShellWord[], facts: Facts, ctx: Context) {
  for (let hops = 0; ; hops += 1) {
    const [program, ...args] = words;
    if (!program) return;
    const base = {
      program,
      args,
      environment: facts.environment,
      writesFile: facts.writes,
      ...facts.stage,
    };
    if (!program.known || hops > limits.wrappers) {
      ctx.analysis.add({
        ...base,
        role: 'command',
        opaque: program.known ? 'too many wrappers' : null,
      });
      return;
    }
    const invocation = classifyInvocation(programName(program.value), args);
    if (invocation.kind === 'program' && invocation.setsVariables) ctx.analysis.setVariables();
    if (invocation.kind === 'program' || invocation.kind === 'opaque') {
      const opaque = invocation.kind === 'opaque' ? invocation.reason : null;
      ctx.analysis.add({ ...base, role: 'command', opaque });
      return;
    }
    if (invocation.kind === 'wrapper' && invocation.command === null) {
      ctx.analysis.add({ ...base, role: 'command', opaque: null });
      return;
    }
    ctx.analysis.add({
      ...base,
      role: invocation.transparent ? 'transparent-wrapper' : 'wrapper',
      opaque: null,
    });
    if (invocation.kind === 'shell') {
      ctx.analysis.shells = true;
      if (facts.environment) ctx.analysis.doubtAll(shellEnvironment);
      const inner = { ...ctx, depth: ctx.depth + 1, stage: facts.stage };
      analyseSource(invocation.script, {
        ...inner,
        dialect: invocation.dialect,
        environment: facts.environment,
        writes: facts.writes,
      });
      return;
    }
    facts = {
      ...facts,
      environment: facts.environment || invocation.environment,
      writes: facts.writes || invocation.writes,
    };
    words = invocation.command ?? [];
  }
}

const writingOperators = new Set(['>', '>>', '>|', '<>', '&>', '&>>', '>&']);
const harmlessTargets = new Set(['/dev/null', '/dev/stdout', '/dev/stderr']);

/** Walks the redirections' words; true when one of them writes a file. */
function redirections(list: readonly Redirection[], ctx: Context): boolean {
  let writes = ctx.writes;
  for (const redirection of list) {
    if (redirection.type === 'HereDoc') {
      for (const part of redirection.body.parts ?? []) partOf(part, ctx, false);
      continue;
    }
    const target = redirection.target ? wordOf(redirection.target, ctx) : unknownWord(false);
    if (bashRedirection(redirection, target))
      bashOnly(`the redirection ${redirection.operator}`, ctx);
    if (redirection.type === 'HereString' || !writingOperators.has(redirection.operator)) continue;
    if (target.known && harmlessTargets.has(target.value)) continue;
    if (redirection.operator === '>&' && target.known && /^(\d+|-)$/.test(target.value)) continue;
    writes = true;
  }
  return writes;
}

/** Bash runs code from its environment: `BASH_ENV`, exported functions, `PS4` when tracing. */
const shellEnvironment = 'a shell started with variables set may run code held in them';

/** Redirections only bash has: `&>`, `<<<`, `>&file`, `{fd}>`. */
function bashRedirection(redirection: Redirection, target: ShellWord): boolean {
  if (redirection.type === 'HereDoc') return false;
  if (redirection.type === 'HereString') return true;
  if (redirection.descriptor?.type === 'FileDescriptorVariable') return true;
  if (redirection.operator === '&>' || redirection.operator === '&>>') return true;
  const duplicates = redirection.operator === '>&' || redirection.operator === '<&';
  return duplicates && !(target.known && /^(\d+-?|-)$/.test(target.value));
}

/** Bash's own syntax in a script a POSIX shell reads: that shell may find other commands in it. */
function bashOnly(what: string, ctx: Context) {
  if (ctx.dialect === 'posix') ctx.analysis.doubtAll(`${what}, which sh reads otherwise than bash`);
}

function assignmentWord(assignment: Assignment, ctx: Context): ShellWord {
  const risky = riskyName(assignment.name);
  if (risky) ctx.analysis.doubtAll(`it sets ${risky}`);
  if (assignment.index) subscript(assignment.index, ctx);
  if (assignment.value.type === 'ArrayValue') {
    for (const element of assignment.value.elements) wordOf(element, ctx);
    return unknownWord(false);
  }
  const value = wordOf(assignment.value, ctx);
  if (!value.known || assignment.index) return unknownWord(false);
  return knownWord(`${assignment.name}${assignment.append ? '+=' : '='}${value.value}`);
}

interface PartInfo {
  known: boolean;
  splits: boolean;
}

const known: PartInfo = { known: true, splits: false };
const unknownOne: PartInfo = { known: false, splits: false };
const unknownMany: PartInfo = { known: false, splits: true };

/** Bash expands `~` after `=` and `:` in any word shaped like an assignment (`echo a=~`). */
function expandsHome(word: Word): boolean {
  if (!/^[A-Za-z_][A-Za-z0-9_]*\+?=/.test(word.text)) return false;
  const literals = word.parts?.flatMap((p) => (p.type === 'Literal' ? [p.text] : [])) ?? [
    word.text,
  ];
  return literals.some((text) => /(^|[=:])~/.test(text));
}

/** A word's value when it holds no expansion; every substitution inside is analysed too. */
function wordOf(word: Word, ctx: Context): ShellWord {
  const home = expandsHome(word);
  if (!word.parts) {
    return word.text.startsWith('~') || home ? unknownWord(false) : knownWord(word.value);
  }
  const parts = word.parts.map((part, i) => partOf(part, ctx, i === 0));
  if (parts.every((p) => p.known) && !home) return knownWord(word.value);
  return unknownWord(parts.some((p) => p.splits));
}

function partOf(part: WordPart, ctx: Context, first: boolean): PartInfo {
  switch (part.type) {
    case 'Literal':
      // An unquoted leading `~` is the home directory, which the gate does not know.
      return first && part.text.startsWith('~') ? unknownOne : known;
    case 'SingleQuoted':
      return known;
    case 'AnsiCQuoted':
      bashOnly("$'…'", ctx);
      // Bash keeps a backslash and line break inside `$'…'`; the parser drops them.
      return part.text.includes('\\\n') ? unknownOne : known;
    case 'DoubleQuoted':
    case 'LocaleString': {
      if (part.type === 'LocaleString') bashOnly('$"…"', ctx);
      const inner = part.parts.map((child) => quotedPartOf(child, ctx));
      return { known: inner.every((p) => p.known), splits: inner.some((p) => p.splits) };
    }
    case 'SimpleExpansion':
      return unknownMany;
    case 'ParameterExpansion':
      parameter(part, ctx);
      return unknownMany;
    case 'CommandExpansion':
      substitution(part, ctx);
      return unknownMany;
    case 'ProcessSubstitution':
      bashOnly('a process substitution', ctx);
      substitution(part, ctx);
      return unknownOne;
    case 'ArithmeticExpansion':
      if (part.expression) arithmetic(part.expression, ctx);
      else ctx.analysis.doubtAll('arithmetic it cannot parse');
      return unknownMany;
    case 'Glob':
    case 'ExtendedGlob':
    case 'BraceExpansion':
      for (const inner of part.parts ?? []) partOf(inner, ctx, false);
      return unknownMany;
  }
}

function quotedPartOf(part: DoubleQuotedChild, ctx: Context): PartInfo {
  switch (part.type) {
    case 'Literal':
      return known;
    case 'SimpleExpansion':
      return part.text === '$@' ? unknownMany : unknownOne;
    case 'ParameterExpansion':
      parameter(part, ctx);
      return part.parameter === '@' || part.index?.value === '@' || part.operation?.type === 'Names'
        ? unknownMany
        : unknownOne;
    case 'CommandExpansion':
      substitution(part, ctx);
      return unknownOne;
    case 'ArithmeticExpansion':
      if (part.expression) arithmetic(part.expression, ctx);
      else ctx.analysis.doubtAll('arithmetic it cannot parse');
      return unknownOne;
  }
}

function substitution(
  part: CommandExpansionPart | ProcessSubstitutionPart | ArithmeticCommandExpansion,
  ctx: Context,
) {
  // Backquotes nest through escapes that parsers and shells read differently.
  if (part.text.startsWith('`')) ctx.analysis.doubtAll('backquotes');
  ctx.analysis.doubtAllow('a command or process substitution');
  if (ctx.depth >= limits.depth) {
    ctx.analysis.doubtAll('code nested too deep');
    return;
  }
  if (!part.script) {
    ctx.analysis.doubtAll('a substitution it cannot parse');
    return;
  }
  // Its output feeds the command holding it, or that command's output feeds it (`>(…)`).
  const feeds = part.type === 'ProcessSubstitution' && part.operator === '>' ? 1 : -1;
  const here = ctx.stage;
  walkScript(part.script, {
    ...ctx,
    depth: ctx.depth + 1,
    stage: null,
    lane: here ? { pipeline: here.pipeline, prefix: [...here.position, feeds] } : null,
    writes: false,
    environment: false,
  });
}

const integer = /^\s*-?\d+\s*$/;

/** A subscript is evaluated as arithmetic, whose names are evaluated in turn. */
function subscript(index: Word, ctx: Context) {
  const value = wordOf(index, ctx);
  if (!value.known || !/^(\d+|@|\*)$/.test(value.value))
    ctx.analysis.doubtAll('an array subscript (its evaluation can run commands)');
}

/** `${…}` forms whose evaluation can run commands hidden in variables make the line uncertain. */
function parameter(part: ParameterExpansionPart, ctx: Context) {
  const doubt = (why: string) => {
    ctx.analysis.doubtAll(`${why} (its evaluation can run commands)`);
  };
  if (part.prefix === '!') doubt('an indirect expansion');
  if (part.index) subscript(part.index, ctx);
  const operation = part.operation;
  switch (operation?.type) {
    case undefined:
    case 'Names':
      return;
    case 'Default':
    case 'Remove':
    case 'CaseModification':
    case 'Transform': {
      const operand = operation.operand ? wordOf(operation.operand, ctx) : undefined;
      if (operation.type === 'Transform' && !(operand?.known && !operand.value.includes('P')))
        doubt('a prompt expansion');
      return;
    }
    case 'Replace':
      wordOf(operation.pattern, ctx);
      wordOf(operation.replacement, ctx);
      return;
    case 'Slice': {
      const bounds = [operation.offset, operation.length].flatMap((w) =>
        w ? [wordOf(w, ctx)] : [],
      );
      if (!bounds.every((b) => b.known && integer.test(b.value))) doubt('arithmetic on variables');
      return;
    }
    case 'Unknown':
      doubt('a parameter operation it does not know');
      return;
  }
}

const number = /^(0[xX][0-9a-fA-F]+|\d+(#[0-9A-Za-z@_]+)?)$/;

/** True for arithmetic over literal numbers; a name's value would be evaluated in turn. */
function plainArithmetic(expression: ArithmeticExpression, ctx: Context): boolean {
  switch (expression.type) {
    case 'ArithmeticWord':
      for (const part of expression.parts ?? []) partOf(part, ctx, false);
      return !expression.parts && number.test(expression.value);
    case 'ArithmeticCommandExpansion':
      substitution(expression, ctx);
      return false;
    case 'ArithmeticBinary':
      return [expression.left, expression.right].map((e) => plainArithmetic(e, ctx)).every(Boolean);
    case 'ArithmeticUnary':
      return plainArithmetic(expression.operand, ctx);
    case 'ArithmeticTernary':
      return [expression.test, expression.consequent, expression.alternate]
        .map((e) => plainArithmetic(e, ctx))
        .every(Boolean);
    case 'ArithmeticGroup':
      return plainArithmetic(expression.expression, ctx);
  }
}

function arithmetic(expression: ArithmeticExpression, ctx: Context) {
  if (!plainArithmetic(expression, ctx))
    ctx.analysis.doubtAll('arithmetic on names (their values are evaluated and can run commands)');
}

const arithmeticTests = new Set(['-eq', '-ne', '-lt', '-le', '-gt', '-ge']);

function testExpression(expression: TestExpression, ctx: Context): void {
  switch (expression.type) {
    case 'TestUnary': {
      const operand = wordOf(expression.operand, ctx);
      if (expression.operator === '-v' && !(operand.known && !operand.value.includes('[')))
        ctx.analysis.doubtAll('[[ -v ]] on a name the shell evaluates');
      return;
    }
    case 'TestBinary': {
      const sides = [wordOf(expression.left, ctx), wordOf(expression.right, ctx)];
      const plain = sides.every((s) => s.known && integer.test(s.value));
      if (arithmeticTests.has(expression.operator) && !plain)
        ctx.analysis.doubtAll('[[ ]] arithmetic on names (their values are evaluated)');
      return;
    }
    case 'TestLogical':
      for (const operand of expression.operands) testExpression(operand, ctx);
      return;
    case 'TestNot':
      testExpression(expression.operand, ctx);
      return;
    case 'TestGroup':
      testExpression(expression.expression, ctx);
      return;
  }
}
