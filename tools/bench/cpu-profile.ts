/**
 * The functions a process spent its CPU in, read from the V8 profiles Node writes on exit with
 * `--cpu-prof` (one file per thread: `CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile`), only
 * the samples taken while the load ran.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../devstack/stack-config.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

interface CpuProfile {
  nodes: ProfileNode[];
  /** Microseconds on the monotonic clock that process.hrtime reads. */
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** A span of the monotonic clock, in microseconds, as `process.hrtime.bigint()` / 1000. */
export interface Window {
  fromUs: number;
  toUs: number;
}

export const nowUs = () => Number(process.hrtime.bigint() / 1000n);

/** Where a function is, short: a package's name and file, or the project's file, and its line. */
function place(url: string, line: number): string {
  if (url === '') return '';
  const file = url.replace(/^file:\/\//, '');
  const inPackage = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(.*)$/.exec(file);
  const short = inPackage
    ? `${inPackage[1]} ${path.basename(inPackage[2] ?? '')}`
    : path.relative(projectRoot, file);
  return `${short}:${line + 1}`;
}

/**
 * Self time per function within the windows, in microseconds, and their total not idle. V8 samples
 * on the wall clock: on a loaded machine a thread's time includes its waits for a core.
 */
function selfTimes(profile: CpuProfile, windows: readonly Window[]) {
  const names = new Map<number, string>();
  for (const { id, callFrame } of profile.nodes) {
    const where = place(callFrame.url, callFrame.lineNumber);
    names.set(id, `${callFrame.functionName || '(anonymous)'}${where && `  ${where}`}`);
  }
  const self = new Map<string, number>();
  let busy = 0;
  let inWindow = 0;
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    if (!windows.some((w) => at >= w.fromUs && at <= w.toUs)) return;
    inWindow += 1;
    const name = names.get(id) ?? '?';
    if (name === '(idle)') return;
    busy += delta;
    self.set(name, (self.get(name) ?? 0) + delta);
  });
  return { self, busy, inWindow };
}

/**
 * Prints, for each profile in `dir` of a process named in `processes`, its top functions by
 * self time within the windows and each one's share of the thread's busy time.
 */
export function printTopFunctions(
  dir: string,
  processes: Map<number, string>,
  windows: readonly Window[],
  top = 12,
): void {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .sort();
  for (const file of files) {
    const [pid, thread] = file.split('.').slice(3, 5).map(Number);
    const name = processes.get(pid ?? NaN);
    if (name === undefined) continue;
    const profile = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as CpuProfile;
    const { self, busy, inWindow } = selfTimes(profile, windows);
    const threadName = thread === 0 ? 'main thread' : `thread ${thread}`;
    process.stdout.write(
      `\n  ${name}, ${threadName}: ${(busy / 1e6).toFixed(2)} s not idle in the load's ${inWindow} samples (${file})\n`,
    );
    if (busy === 0) continue;
    const ranked = [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, top);
    for (const [fn, us] of ranked)
      process.stdout.write(
        `    ${((100 * us) / busy).toFixed(1).padStart(5)} %  ${(us / 1000).toFixed(0).padStart(6)} ms  ${fn}\n`,
      );
  }
}
