import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities } from './activities/index.js';
import { CredentialSealer } from './broker/sealing.js';
import { runtimeConfig, type RuntimeConfig } from './runtime-config.js';
import { startReservationSweeper } from './store/budget.js';
import { createPool } from './store/pool.js';

export const workflowsPath = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  'workflows/index.ts',
);

/**
 * GATE_RESERVATION_TTL_S (default 900): seconds a model reservation may go undrained before the
 * sweep releases its hold; well past the longest streamed response. A late drain still counts.
 */
function reservationTtlMs(env: NodeJS.ProcessEnv = process.env): number {
  const seconds = Number(env.GATE_RESERVATION_TTL_S ?? 900);
  if (!Number.isFinite(seconds) || seconds <= 0) {
    throw new Error(
      `GATE_RESERVATION_TTL_S must be a positive number of seconds, not "${env.GATE_RESERVATION_TTL_S ?? ''}"`,
    );
  }
  return seconds * 1000;
}

/** Creates a gate worker and starts the reservation sweep; the caller runs it, then closes. */
export async function createGateWorker(
  config: RuntimeConfig,
  extra: Partial<Pick<WorkerOptions, 'workflowBundle' | 'workflowsPath'>> = {},
) {
  const expireAfterMs = reservationTtlMs();
  const pool = createPool(config.databaseUrl);
  const connection = await NativeConnection.connect({ address: config.temporalAddress });
  const worker = await Worker.create({
    connection,
    namespace: config.namespace,
    taskQueue: config.taskQueue,
    activities: createActivities({
      pool,
      publicUrl: config.publicUrl,
      sealer: CredentialSealer.fromBase64(config.sealingKey),
    }),
    ...(extra.workflowBundle
      ? { workflowBundle: extra.workflowBundle }
      : { workflowsPath: extra.workflowsPath ?? workflowsPath }),
  });
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

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { worker, close } = await createGateWorker(runtimeConfig());
  process.stderr.write(`worker polling task queue ${worker.options.taskQueue}\n`);
  await worker.run();
  await close();
}
