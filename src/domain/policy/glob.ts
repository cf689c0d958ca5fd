import RE2 from 're2';

/**
 * Globs compiled to regular expressions the project controls, so that a pattern means the whole
 * value whatever its characters: line breaks, NUL, U+2028, leading dots, `..` segments and
 * leading slashes are characters like any other.
 *
 * Word globs (`glob`, `tool`, command patterns): `*` is any run of characters, `/` included,
 * `?` one character, `[...]` one character of a class (`[!...]` or `[^...]` negates), `\` quotes
 * the next character. Path globs (`path`): the same within one segment, and a segment `**` is
 * any number of segments, none included.
 */

const posixClasses = new Map<string, string>(
  Object.entries({
    alnum: 'A-Za-z0-9',
    alpha: 'A-Za-z',
    blank: ' \\t',
    cntrl: '\\x00-\\x1f\\x7f',
    digit: '0-9',
    lower: 'a-z',
    punct: '!-\\/:-@\\[-`{-~',
    space: ' \\t\\n\\r\\v\\f',
    upper: 'A-Z',
    xdigit: '0-9A-Fa-f',
  }),
);

// Characters a `u`-mode regular expression needs quoted, outside and inside a class.
const outsideClass = new Set(Array.from('^$\\.*+?()[]{}|/'));
const insideClass = new Set([...outsideClass, '-']);

function quote(char: string, special: ReadonlySet<string>): string {
  return special.has(char) ? `\\${char}` : char;
}

type ClassMember = { char: string } | { source: string };

/** The members of `[...]` from `i`, up to the closing `]`, or null when it never closes. */
function classMembers(chars: readonly string[], i: number): [ClassMember[], number] | null {
  const members: ClassMember[] = [];
  for (let first = true; i < chars.length; first = false) {
    const char = chars[i] as string;
    if (char === ']' && !first) return [members, i];
    const posix = char === '[' && chars[i + 1] === ':' ? posixClass(chars, i) : null;
    if (posix) {
      members.push({ source: posix.source });
      i = posix.end;
    } else if (char === '\\' && i + 1 < chars.length) {
      members.push({ char: chars[i + 1] as string });
      i += 2;
    } else {
      members.push({ char });
      i += 1;
    }
  }
  return null;
}

function posixClass(chars: readonly string[], i: number): { source: string; end: number } | null {
  const close = chars.indexOf(':', i + 2);
  if (close < 0 || chars[close + 1] !== ']') return null;
  const source = posixClasses.get(chars.slice(i + 2, close).join(''));
  return source === undefined ? null : { source, end: close + 2 };
}

/** `a-z` is a range when both ends are characters in order; any other `-` is itself. */
function classSource(members: readonly ClassMember[]): string {
  let source = '';
  for (let k = 0; k < members.length; k += 1) {
    const member = members[k] as ClassMember;
    const dash = members[k + 1];
    const end = members[k + 2];
    if (
      'char' in member &&
      dash &&
      'char' in dash &&
      dash.char === '-' &&
      end &&
      'char' in end &&
      (member.char.codePointAt(0) ?? 0) <= (end.char.codePointAt(0) ?? 0)
    ) {
      source += `${quote(member.char, insideClass)}-${quote(end.char, insideClass)}`;
      k += 2;
    } else {
      source += 'char' in member ? quote(member.char, insideClass) : member.source;
    }
  }
  return source;
}

interface ClassToken {
  source: string;
  length: number;
}

/** `[...]` starting at `start` (code points), or null when it never closes: then `[` is literal. */
function bracketClass(chars: readonly string[], start: number): ClassToken | null {
  let i = start + 1;
  const negate = chars[i] === '!' || chars[i] === '^';
  if (negate) i += 1;
  const found = classMembers(chars, i);
  if (!found) return null;
  const [members, close] = found;
  return { source: `[${negate ? '^' : ''}${classSource(members)}]`, length: close - start + 1 };
}

/** A glob as the source of a regular expression; `*` is any run of characters. */
function globBody(pattern: string): string {
  const chars = Array.from(pattern);
  let source = '';
  for (let i = 0; i < chars.length; i += 1) {
    const char = chars[i] as string;
    if (char === '*') {
      while (chars[i + 1] === '*') i += 1;
      source += '.*';
    } else if (char === '?') {
      source += '.';
    } else if (char === '[') {
      const token = bracketClass(chars, i);
      if (token) {
        source += token.source;
        i += token.length - 1;
      } else {
        source += quote(char, outsideClass);
      }
    } else if (char === '\\' && i + 1 < chars.length) {
      i += 1;
      source += quote(chars[i] as string, outsideClass);
    } else {
      source += quote(char, outsideClass);
    }
  }
  return source;
}

interface Matcher {
  test(value: string): boolean;
}

// `s`: `.` matches line breaks too; `u`: one character is one code point.
const flags = 'su';

/**
 * One run of stars backtracks at most once over the value; several would make a long value cost
 * its length to the power of their number, so those go to RE2, which is linear.
 */
function compileWordGlob(pattern: string): Matcher {
  const source = `^(?:${globBody(pattern)})$`;
  const starRuns = pattern.match(/\*+/g)?.length ?? 0;
  return starRuns <= 1 ? new RegExp(source, flags) : new RE2(source, flags);
}

/** A path glob: its segments, `**` standing for any number of them. */
type PathGlob = readonly (Matcher | typeof anySegments)[];
const anySegments = '**';

const segmentsOf = (path: string): string[] => {
  const rest = path.startsWith('/') ? path.slice(1) : path;
  return rest === '' ? [] : rest.split('/');
};

/** Path globs are matched segment by segment against normalised absolute paths. */
function compilePathGlob(pattern: string): PathGlob {
  return segmentsOf(pattern).map((s) => (s === anySegments ? anySegments : compileWordGlob(s)));
}

function pathMatches(glob: PathGlob, path: string): boolean {
  const advance = (states: boolean[]) => {
    for (let i = 0; i < glob.length; i += 1)
      if (states[i] && glob[i] === anySegments) states[i + 1] = true;
    return states;
  };
  let states = advance([true]);
  for (const segment of segmentsOf(path)) {
    const next: boolean[] = [];
    glob.forEach((part, i) => {
      if (!states[i]) return;
      if (part === anySegments) next[i] = true;
      else if (part.test(segment)) next[i + 1] = true;
    });
    states = advance(next);
    if (!states.includes(true)) return false;
  }
  return states[glob.length] === true;
}

// Compiling costs far more than matching: keep the compiled patterns (bounded).
const maxCached = 10_000;
const wordCache = new Map<string, Matcher>();
const pathCache = new Map<string, PathGlob>();

function cached<T>(cache: Map<string, T>, pattern: string, compile: (p: string) => T): T {
  let compiled = cache.get(pattern);
  if (!compiled) {
    if (cache.size >= maxCached) cache.clear();
    compiled = compile(pattern);
    cache.set(pattern, compiled);
  }
  return compiled;
}

export function wordGlobMatches(pattern: string, value: string): boolean {
  return cached(wordCache, pattern, compileWordGlob).test(value);
}

export function pathGlobMatches(pattern: string, normalisedPath: string): boolean {
  return pathMatches(cached(pathCache, pattern, compilePathGlob), normalisedPath);
}

/** A word glob every string matches: `*`, `**`, … */
export function matchesEveryWord(pattern: string): boolean {
  return /^\*+$/.test(pattern);
}
