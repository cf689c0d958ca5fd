/**
 * A tool call read for a person: what it does, in the terms of its tool. Pure; the web pages
 * render it, the list prints its one line. Anything unexpected in the arguments falls back to
 * the generic reading (each argument as it is), never to a guess.
 */
import { analyseCommand, type CommandAnalysis } from '../policy/shell-command.js';
import { diffCounts, lineDiff, type DiffLine } from './line-diff.js';

export interface FileEdit {
  old_string: string;
  new_string: string;
  replace_all: boolean;
  diff: DiffLine[];
}

export type CallReading =
  | { kind: 'bash'; command: string; analysis: CommandAnalysis }
  | { kind: 'edit'; path: string; edits: FileEdit[] }
  | { kind: 'write'; path: string; content: string }
  | { kind: 'generic' };

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function fileEdit(value: unknown): FileEdit | undefined {
  if (!isRecord(value)) return undefined;
  const { old_string, new_string, replace_all } = value;
  if (typeof old_string !== 'string' || typeof new_string !== 'string') return undefined;
  return {
    old_string,
    new_string,
    replace_all: replace_all === true,
    diff: lineDiff(old_string, new_string),
  };
}

/** The agent's built-in tools read by their own shape; any other tool generically. */
export function readCall(tool: string, args: Record<string, unknown>): CallReading {
  const path = args.file_path;
  if (tool === 'Bash' && typeof args.command === 'string')
    return { kind: 'bash', command: args.command, analysis: analyseCommand(args.command) };
  if (tool === 'Write' && typeof path === 'string' && typeof args.content === 'string')
    return { kind: 'write', path, content: args.content };
  if (tool === 'Edit' && typeof path === 'string') {
    const edit = fileEdit(args);
    if (edit) return { kind: 'edit', path, edits: [edit] };
  }
  if (tool === 'MultiEdit' && typeof path === 'string' && Array.isArray(args.edits)) {
    // An empty edit list changes nothing an approver could read as a diff: shown as it is.
    const edits = args.edits.map(fileEdit);
    if (edits.length > 0 && edits.every((edit) => edit !== undefined))
      return { kind: 'edit', path, edits };
  }
  return { kind: 'generic' };
}

/** Longest one line, in characters; the rest is behind the call's own page. */
const lineLimit = 160;

function oneLine(text: string, limit = lineLimit): string {
  const lines = text.split('\n');
  const first = lines[0] ?? '';
  const more = lines.length > 1 ? ' …' : '';
  return first.length > limit ? `${first.slice(0, limit - 1)}…` : `${first}${more}`;
}

/** Arguments that say where a file tool acts, or what a search looks for, in order of weight. */
const keyArguments = ['file_path', 'notebook_path', 'path', 'url', 'pattern', 'query'];

function scalarText(value: unknown): string | undefined {
  if (typeof value === 'string') return oneLine(value, 60);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

/** The key arguments as `name=value`: named ones first, then other plain values, three at most. */
function keyValues(args: Record<string, unknown>): string {
  const names = [
    ...keyArguments.filter((name) => name in args),
    ...Object.keys(args).filter((name) => !keyArguments.includes(name)),
  ];
  const shown = names
    .map((name) => [name, scalarText(args[name])] as const)
    .filter((entry): entry is readonly [string, string] => entry[1] !== undefined)
    .slice(0, 3)
    .map(([name, value]) => `${name}=${value}`);
  const rest = Object.keys(args).length - shown.length;
  return [...shown, ...(rest > 0 ? [`+${rest} more`] : [])].join(' ');
}

/** What a call does, in one line: the command, the path (`+n −m` for an edit), key arguments. */
export function callSummary(tool: string, args: Record<string, unknown>): string {
  const reading = readCall(tool, args);
  switch (reading.kind) {
    case 'bash':
      return oneLine(reading.command);
    case 'write': {
      const lines = reading.content === '' ? 0 : reading.content.split('\n').length;
      return `${oneLine(reading.path)} (${lines} ${lines === 1 ? 'line' : 'lines'})`;
    }
    case 'edit': {
      const counts = reading.edits
        .map((edit) => diffCounts(edit.diff))
        .reduce((a, b) => ({ added: a.added + b.added, removed: a.removed + b.removed }));
      return `${oneLine(reading.path)} +${counts.added} −${counts.removed}`;
    }
    case 'generic':
      return keyValues(args);
  }
}
