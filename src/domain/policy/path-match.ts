import { pathGlobMatches } from './glob.js';
import type { MatchOutcome } from './match-outcome.js';

/**
 * Paths are compared after lexical normalisation, the way the kernel walks them: `.` and empty
 * segments vanish, `..` removes the segment before it (and stays at `/` at the top), and a
 * trailing slash goes. Symbolic links are not followed: the gate never touches the file system.
 */
export function normaliseAbsolutePath(path: string): string {
  const segments: string[] = [];
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') segments.pop();
    else segments.push(segment);
  }
  return `/${segments.join('/')}`;
}

/**
 * The absolute, normalised path a tool will use, or null when the gate cannot know it: a
 * relative path with no base to resolve it against, a `~` the tool may expand, or a NUL byte
 * (a C string ends there).
 */
export function resolvePath(value: string, base: string | undefined): string | null {
  if (value.includes('\0') || value.startsWith('~')) return null;
  if (value.startsWith('/')) return normaliseAbsolutePath(value);
  if (base === undefined) return null;
  return normaliseAbsolutePath(`${base}/${value}`);
}

/** The `path` operator: a string argument, resolved and normalised, against a path glob. */
export function pathOutcome(
  pattern: string,
  value: unknown,
  base: string | undefined,
): MatchOutcome {
  if (typeof value !== 'string') return 'no';
  const resolved = resolvePath(value, base);
  if (resolved === null) return 'uncertain';
  return pathGlobMatches(pattern, resolved) ? 'match' : 'no';
}
