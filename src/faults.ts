/**
 * Faults a test injects into a real process through the environment, to act out crashes at
 * precise moments. GATE_FAULTS is a comma-separated list of `name=value`; unset in production,
 * where every lookup answers "no fault".
 *
 *   stage-delay:<activity>=<ms>   the activity sleeps before it starts (a worker to kill mid-call)
 *   stage-fail:<activity>=<text>  the activity throws, every attempt (a stage that cannot answer)
 */
function parseFaults(spec: string | undefined): ReadonlyMap<string, string> {
  const faults = new Map<string, string>();
  for (const item of (spec ?? '').split(',')) {
    const [name, value] = item.split('=');
    if (name && value !== undefined) faults.set(name.trim(), value.trim());
  }
  return faults;
}

const faults = parseFaults(process.env.GATE_FAULTS);

export function faultDelayMs(activity: string): number {
  const value = Number(faults.get(`stage-delay:${activity}`) ?? 0);
  return Number.isFinite(value) && value > 0 ? value : 0;
}

/** The message an activity must fail with, or undefined when it runs normally. */
export function faultFailure(activity: string): string | undefined {
  return faults.get(`stage-fail:${activity}`);
}
