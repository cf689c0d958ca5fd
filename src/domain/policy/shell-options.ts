import { wordText, type ShellWord } from './shell-words.js';

/** The options a program takes in front of its operands, as getopt reads them. */
export interface OptionSpec {
  /** Short options without a value. */
  flags?: string;
  /** Short options that take a value (attached or as the next word). */
  valued?: string;
  /** Short options whose value can only be attached (`-i{}`), or is absent. */
  attached?: string;
  long?: readonly string[];
  longValued?: readonly string[];
  /** `-10` is an option (nice). */
  numeric?: boolean;
  /** A lone `-` is an option (env). */
  dash?: boolean;
}

type ScannedOptions =
  | {
      ok: true;
      /** The options seen, by letter or long name, with their values (undefined: unreadable). */
      seen: Map<string, string | undefined>;
      rest: ShellWord[];
    }
  | { ok: false; reason: string };

interface Scan {
  spec: OptionSpec;
  args: readonly ShellWord[];
  seen: Map<string, string | undefined>;
}

/** The index after a long option at `i`, or a reason the gate cannot follow it. */
function longOption(scan: Scan, i: number, text: string): number | string {
  const [name = '', value] = text.slice(2).split(/=(.*)/s);
  if (scan.spec.long?.includes(name)) {
    scan.seen.set(name, value);
    return i + 1;
  }
  if (!scan.spec.longValued?.includes(name)) return `an option it does not know (${text})`;
  if (value !== undefined) {
    scan.seen.set(name, value);
    return i + 1;
  }
  scan.seen.set(name, wordText(scan.args[i + 1]));
  return i + 2;
}

/** The index after a group of short options at `i` (`-nE`, `-uroot`, `-u root`). */
function shortOptions(scan: Scan, i: number, text: string): number | string {
  const { spec } = scan;
  if (spec.numeric && /^-\d+$/.test(text)) return i + 1;
  const letters = Array.from(text.slice(1));
  for (let j = 0; j < letters.length; j += 1) {
    const letter = letters[j] as string;
    const attachedValue = letters.slice(j + 1).join('');
    if (spec.flags?.includes(letter)) {
      scan.seen.set(letter, undefined);
    } else if (spec.attached?.includes(letter)) {
      scan.seen.set(letter, attachedValue);
      return i + 1;
    } else if (spec.valued?.includes(letter)) {
      if (attachedValue !== '') {
        scan.seen.set(letter, attachedValue);
        return i + 1;
      }
      scan.seen.set(letter, wordText(scan.args[i + 1]));
      return i + 2;
    } else {
      return `an option it does not know (-${letter})`;
    }
  }
  return i + 1;
}

/**
 * Reads the options in front of the operands. Anything it cannot read with certainty (an
 * unknown option, a word whose value only the shell knows) ends in a reason, never a guess:
 * an unknown option may be the one that runs a command.
 */
export function scanOptions(args: readonly ShellWord[], spec: OptionSpec): ScannedOptions {
  const scan: Scan = { spec, args, seen: new Map() };
  let i = 0;
  while (i < args.length) {
    const word = args[i] as ShellWord;
    if (!word.known) return { ok: false, reason: 'an option word only the shell can read' };
    const text = word.value;
    if (text === '--') {
      i += 1;
      break;
    }
    if (text === '-' && spec.dash) {
      scan.seen.set('-', undefined);
      i += 1;
      continue;
    }
    if (!text.startsWith('-') || text === '-') break;
    const next = text.startsWith('--') ? longOption(scan, i, text) : shortOptions(scan, i, text);
    if (typeof next === 'string') return { ok: false, reason: next };
    i = next;
  }
  return { ok: true, seen: scan.seen, rest: args.slice(i) };
}
