/**
 * A predicate over a tool call's arguments answers one of three things: it holds, it does not,
 * or the gate cannot tell (a command it cannot analyse, a relative path with no base).
 */
export type MatchOutcome = 'match' | 'no' | 'uncertain';

/** Every part must hold: one sure "no" decides, otherwise any doubt is kept. */
export function allOf(outcomes: Iterable<MatchOutcome>): MatchOutcome {
  let result: MatchOutcome = 'match';
  for (const outcome of outcomes) {
    if (outcome === 'no') return 'no';
    if (outcome === 'uncertain') result = 'uncertain';
  }
  return result;
}

/** Some part must hold: one sure "match" decides, otherwise any doubt is kept. */
export function anyOf(outcomes: Iterable<MatchOutcome>): MatchOutcome {
  let result: MatchOutcome = 'no';
  for (const outcome of outcomes) {
    if (outcome === 'match') return 'match';
    if (outcome === 'uncertain') result = 'uncertain';
  }
  return result;
}

/** At most `ceiling`: a match the gate is not sure of becomes uncertain. */
export function capAt(outcome: MatchOutcome, ceiling: MatchOutcome): MatchOutcome {
  if (outcome === 'no' || ceiling === 'no') return 'no';
  return outcome === 'uncertain' || ceiling === 'uncertain' ? 'uncertain' : 'match';
}
