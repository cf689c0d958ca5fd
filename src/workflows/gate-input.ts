import type { FlatGateInput, GateInput } from '../domain/gate/vocabulary.js';

/** A gate's input as the workflow runs it, whichever shape its start gave it. */
export interface RunnableInput extends GateInput {
  /** Started flat, asking for its stages one regular activity each: they run so to its end. */
  stageByStage: boolean;
}

/**
 * The input in today's shape. A workflow started before the split keeps the path it began on,
 * so its history replays; a pure function of the input, so every replay reads it alike.
 */
export function runnableInput(input: GateInput | FlatGateInput): RunnableInput {
  if ('call' in input) return { call: input.call, settings: input.settings, stageByStage: false };
  const {
    approval_recheck_s,
    approval_recheck_max_s,
    unavailable_window_s,
    stage_activities,
    ...call
  } = input;
  return {
    call,
    settings: { approval_recheck_s, approval_recheck_max_s, unavailable_window_s },
    stageByStage: stage_activities === 'remote',
  };
}
