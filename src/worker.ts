import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  NativeConnection,
  Worker,
  bundleWorkflowCode,
  type WorkerOptions,
} from '@temporalio/worker';
import { createActivities } from './activities/index.js';
import { CredentialSealer } from './broker/sealing.js';
import { configOrExit, type GateConfig } from './config.js';
import { startReservationSweeper } from './store/budget.js';
import { createPool, type Pool } from './store/pool.js';
import { connectionOptions } from './temporal/connection-options.js';

export const workflowsPath = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  'workflows/index.ts',
);

/** What a caller may add to a gate worker: a prebuilt bundle, or activity interceptors. */
export type GateWorkerExtras = Partial<
  Pick<WorkerOptions, 'workflowBundle' | 'workflowsPath' | 'interceptors'>
>;

/** The workflow code a worker runs: a bundle given or built beforehand, else the source. */
function workflowCode(
  config: GateConfig,
  extra: GateWorkerExtras,
): Pick<WorkerOptions, 'workflowBundle' | 'workflowsPath'> {
  if (extra.workflowBundle) return { workflowBundle: extra.workflowBundle };
  if (config.workflowBundlePath) return { workflowBundle: { codePath: config.workflowBundlePath } };
  return { workflowsPath: extra.workflowsPath ?? workflowsPath };
}

/** Bundles the workflow code for the sandbox into `file`, for workers to start without bundling. */
export async function bundleWorkflowTo(file: string): Promise<void> {
  const noop = () => undefined;
  const logger = { log: noop, trace: noop, debug: noop, info: noop, warn: noop, error: noop };
  const { code } = await bundleWorkflowCode({ workflowsPath, logger });
  writeFileSync(file, code);
}

/**
 * A gate worker on a connection the caller owns: the worker process's own, or the API's, whose
 * client then starts workflows eagerly on it.
 */
export function createGateWorkerOn(
  connection: NativeConnection,
  config: GateConfig,
  pool: Pool,
  extra: GateWorkerExtras = {},
): Promise<Worker> {
  return Worker.create({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    activities: createActivities({
      pool,
      publicUrl: config.api.publicUrl,
      sealer: CredentialSealer.fromBase64(config.sealingKey),
    }),
    ...workflowCode(config, extra),
    ...(extra.interceptors && { interceptors: extra.interceptors }),
  });
}

/** Creates a gate worker and starts the reservation sweep; the caller runs it, then closes. */
export async function createGateWorker(config: GateConfig, extra: GateWorkerExtras = {}) {
  const expireAfterMs = config.reservationTtlS * 1000;
  const pool = createPool(config.databaseUrl);
  const connection = await NativeConnection.connect(connectionOptions(config.temporal));
  const worker = await createGateWorkerOn(connection, config, pool, extra);
  // The sweep releases holds of model requests never drained; a late drain still counts.
  const stopSweeper = startReservationSweeper(pool, {
    expireAfterMs,
    intervalMs: Math.min(30_000, expireAfterMs / 4),
  });
  const close = async () => {
    await stopSweeper();
    await connection.close();
    await pool.end();
  };
  return { worker, close };
}

/** Runs a gate worker until the process is told to stop. */
export async function runGateWorker(config: GateConfig, extra: GateWorkerExtras = {}) {
  const { worker, close } = await createGateWorker(config, extra);
  process.stderr.write(`worker polling task queue ${worker.options.taskQueue}\n`);
  await worker.run();
  await close();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await runGateWorker(configOrExit());
}
