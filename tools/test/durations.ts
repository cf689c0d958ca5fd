/**
 * How long each test file took, kept between runs so `npm test` starts the slowest files first
 * (a long file started last would leave the other slots idle while it finishes). A fresh clone
 * has no runs of its own: it orders by `test/durations.json`, the figures of a full run kept
 * with the code (seconds, by path from the project's root).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

function readDurations(file: string): Record<string, number> {
  if (!existsSync(file)) return {};
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Record<string, number>;
  } catch {
    return {}; // a run cut short left half a file: order as if nothing were known
  }
}

/** Durations in milliseconds by absolute path: this tree's own runs over the kept figures. */
function knownDurations(root: string, kept: string, local: string): Map<string, number> {
  const known = new Map<string, number>();
  for (const [file, seconds] of Object.entries(readDurations(kept)))
    known.set(path.resolve(root, file), seconds * 1000);
  for (const [file, ms] of Object.entries(readDurations(local))) known.set(file, ms);
  return known;
}

/** The files, slowest first; files never measured go first of all. */
export function slowestFirst(
  files: readonly string[],
  { root, kept, local }: { root: string; kept: string; local: string },
): string[] {
  const known = knownDurations(root, kept, local);
  const took = (file: string) => known.get(file) ?? Number.POSITIVE_INFINITY;
  return [...files].sort((a, b) => (took(a) === took(b) ? 0 : took(a) < took(b) ? 1 : -1));
}

/** Adds a phase's durations to those kept from earlier runs. */
export function keepDurations(durations: Record<string, number>, durationsFile: string): void {
  mkdirSync(path.dirname(durationsFile), { recursive: true });
  const kept = { ...readDurations(durationsFile), ...durations };
  writeFileSync(durationsFile, JSON.stringify(kept, null, 1));
}
