/**
 * A test-only worker entry point: the production gate worker, with named activities delayed or
 * failing on every attempt, so a crash test can kill it mid-call. Its faults come as JSON in its
 * first argument; `startWorkerProcess` (./worker-processes.ts) starts it.
 */
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import type { GateActivities } from '../../src/activities/index.js';
import { configOrExit } from '../../src/config.js';
import { runGateWorker } from '../../src/worker.js';

export interface Faults {
  /**
   * Milliseconds an activity's first attempt sleeps before it starts (a worker to kill mid-call,
   * a call in flight when a dependency goes); its retries start at once.
   */
  delayMs?: Partial<Record<keyof GateActivities, number>>;
  /** The message an activity throws on every attempt (a stage that cannot answer). */
  fail?: Partial<Record<keyof GateActivities, string>>;
}

function faultInterceptor(faults: Faults): ActivityInterceptorsFactory {
  return (ctx) => ({
    inbound: {
      async execute(input, next) {
        const name = ctx.info.activityType as keyof GateActivities;
        const delayMs = ctx.info.attempt === 1 ? (faults.delayMs?.[name] ?? 0) : 0;
        if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
        const failure = faults.fail?.[name];
        if (failure !== undefined) throw new Error(failure);
        return next(input);
      },
    },
  });
}

const faults = JSON.parse(process.argv[2] ?? '{}') as Faults;
await runGateWorker(configOrExit(), { interceptors: { activity: [faultInterceptor(faults)] } });
