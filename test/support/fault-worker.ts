/**
 * A test-only worker entry point: the production gate worker, with named activities delayed or
 * failing on every attempt, so a crash test can kill it mid-call. Its faults come as JSON in its
 * first argument; `startWorkerProcess` (./worker-processes.ts) starts it.
 */
import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApplicationFailure } from '@temporalio/activity';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import type { GateActivities } from '../../src/activities/index.js';
import { refusePastItsWindow } from '../../src/activities/unavailability.js';
import { configOrExit } from '../../src/config.js';
import { unavailableType } from '../../src/domain/gate/decisions.js';
import { runGateWorker } from '../../src/worker.js';

export interface Faults {
  /**
   * Milliseconds an activity's first attempt sleeps before it starts (a worker to kill mid-call,
   * a call in flight when a dependency goes); its retries start at once. See `releasedBy`.
   */
  delayMs?: Partial<Record<keyof GateActivities, number>>;
  /** The message an activity throws on every attempt (a stage that cannot answer). */
  fail?: Partial<Record<keyof GateActivities, string>>;
  /**
   * A file whose appearance releases what `delayMs` holds: then every attempt of a held activity
   * waits for the file, `delayMs` at most, and fails meanwhile as the state of record away
   * (tried again within the call's window), so no held call goes on before the test's outage has
   * begun, however loaded the machine.
   */
  releasedBy?: string;
}

/** Until `file` exists, for `boundMs` at most; past it, the attempt fails as PostgreSQL away. */
async function heldUntilReleased(file: string, boundMs: number): Promise<void> {
  refusePastItsWindow();
  const until = Date.now() + boundMs;
  while (!existsSync(file)) {
    if (Date.now() >= until)
      throw ApplicationFailure.retryable('held until the outage begins', unavailableType);
    await sleep(50);
  }
}

function faultInterceptor(faults: Faults): ActivityInterceptorsFactory {
  return (ctx) => ({
    inbound: {
      async execute(input, next) {
        const name = ctx.info.activityType as keyof GateActivities;
        const delayMs = faults.delayMs?.[name] ?? 0;
        if (delayMs > 0 && faults.releasedBy !== undefined)
          await heldUntilReleased(faults.releasedBy, delayMs);
        else if (delayMs > 0 && ctx.info.attempt === 1) await sleep(delayMs);
        const failure = faults.fail?.[name];
        if (failure !== undefined) throw new Error(failure);
        return next(input);
      },
    },
  });
}

const faults = JSON.parse(process.argv[2] ?? '{}') as Faults;
await runGateWorker(configOrExit(), { interceptors: { activity: [faultInterceptor(faults)] } });
