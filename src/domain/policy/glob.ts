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

/** One segment's worth of pattern; `anyChar` is what `?` and `*` may consume. */
function globBody(pattern: string, anyChar: string, classGuard: string): string {
  const chars = Array.from(pattern);
  let source = '';
  for (let i = 0; i < chars.length; i += 1) {
    const char = chars[i] as string;
    if (char === '*') {
      while (chars[i + 1] === '*') i += 1;
      source += `${anyChar}*`;
    } else if (char === '?') {
      source += anyChar;
    } else if (char === '[') {
      const token = bracketClass(chars, i);
      if (token) {
        source += classGuard + token.source;
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

// `s`: `.` matches line breaks too; `u`: one character is one code point.
const flags = 'su';

export function compileWordGlob(pattern: string): RegExp {
  return new RegExp(`^(?:${globBody(pattern, '.', '')})$`, flags);
}

/** Path globs are matched against normalised absolute paths (see path-match.ts). */
export function compilePathGlob(pattern: string): RegExp {
  const segments = pattern.startsWith('/') ? pattern.slice(1).split('/') : pattern.split('/');
  const source = segments
    .map((segment) => (segment === '**' ? '(?:/.*)?' : `/${globBody(segment, '[^/]', '(?!/)')}`))
    .join('');
  return new RegExp(`^${source}$`, flags);
}

// Compiling costs far more than matching: keep the compiled patterns (bounded).
const maxCached = 10_000;
const wordCache = new Map<string, RegExp>();
const pathCache = new Map<string, RegExp>();

function cached(cache: Map<string, RegExp>, pattern: string, compile: (p: string) => RegExp) {
  let regex = cache.get(pattern);
  if (!regex) {
    if (cache.size >= maxCached) cache.clear();
    regex = compile(pattern);
    cache.set(pattern, regex);
  }
  return regex;
}

export function wordGlobMatches(pattern: string, value: string): boolean {
  return cached(wordCache, pattern, compileWordGlob).test(value);
}

export function pathGlobMatches(pattern: string, normalisedPath: string): boolean {
  return cached(pathCache, pattern, compilePathGlob).test(normalisedPath);
}

/** A word glob every string matches: `*`, `**`, … */
export function matchesEveryWord(pattern: string): boolean {
  return /^\*+$/.test(pattern);
}
