/**
 * The levels a model request's spend counts at (its run, its person, each of its person's teams,
 * its workspace), and whether a booking fits all of them. Pure: the store loads the counters
 * under lock, asks `firstExhausted`, and books at every level or none.
 */

export type SpendLevelKind = 'run' | 'person' | 'team' | 'workspace';
export type SpendPeriod = 'day' | 'month' | 'life';

export interface SpendLevel {
  kind: SpendLevelKind;
  /** The person's or the team's name; none for a run or the workspace. */
  name: string | null;
  period: SpendPeriod;
  max_nanos: number | null;
  max_tokens: number | null;
  held_nanos: number;
  used_nanos: number;
  held_tokens: number;
  used_tokens: number;
}

export interface Booking {
  nanos: number;
  tokens: number;
}

/** How a refusal names its level: `team "payments", month`. */
export function levelLabel(level: Pick<SpendLevel, 'kind' | 'name' | 'period'>): string {
  const who = level.name === null ? level.kind : `${level.kind} ${JSON.stringify(level.name)}`;
  return `${who}, ${level.period}`;
}

const narrowestFirst: Record<SpendLevelKind, number> = {
  run: 0,
  person: 1,
  team: 2,
  workspace: 3,
};

/** Whether one level can take the booking on top of what it has spent and holds. */
export function levelFits(level: SpendLevel, booking: Booking): boolean {
  const money =
    level.max_nanos === null ||
    level.used_nanos + level.held_nanos + booking.nanos <= level.max_nanos;
  const tokens =
    level.max_tokens === null ||
    level.used_tokens + level.held_tokens + booking.tokens <= level.max_tokens;
  return money && tokens;
}

/** The narrowest level the booking does not fit, or undefined when it fits them all. */
export function firstExhausted(levels: SpendLevel[], booking: Booking): SpendLevel | undefined {
  return [...levels]
    .sort((a, b) => narrowestFirst[a.kind] - narrowestFirst[b.kind])
    .find((level) => !levelFits(level, booking));
}
