/**
 * How long each test file took, kept between runs so `npm test` starts the slowest files first
 * (a long file started last would leave the other slots idle while it finishes).
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

/** The files, slowest first by the last runs; files not seen before go first of all. */
export function slowestFirst(files: readonly string[], durationsFile: string): string[] {
  const known = readDurations(durationsFile);
  const took = (file: string) => known[file] ?? Number.POSITIVE_INFINITY;
  return [...files].sort((a, b) => (took(a) === took(b) ? 0 : took(a) < took(b) ? 1 : -1));
}

/** Adds a phase's durations to those kept from earlier runs. */
export function keepDurations(durations: Record<string, number>, durationsFile: string): void {
  mkdirSync(path.dirname(durationsFile), { recursive: true });
  const kept = { ...readDurations(durationsFile), ...durations };
  writeFileSync(durationsFile, JSON.stringify(kept, null, 1));
}
