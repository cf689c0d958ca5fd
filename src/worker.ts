import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities } from './activities/index.js';
import { runtimeConfig, type RuntimeConfig } from './runtime-config.js';
import { createPool } from './store/pool.js';

export const workflowsPath = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  'workflows/index.ts',
);

/** Creates a gate worker; the caller runs it and closes the pool and connection after. */
export async function createGateWorker(
  config: RuntimeConfig,
  extra: Partial<Pick<WorkerOptions, 'workflowBundle' | 'workflowsPath'>> = {},
) {
  const pool = createPool(config.databaseUrl);
  const connection = await NativeConnection.connect({ address: config.temporalAddress });
  const worker = await Worker.create({
    connection,
    namespace: config.namespace,
    taskQueue: config.taskQueue,
    activities: createActivities({ pool, publicUrl: config.publicUrl }),
    ...(extra.workflowBundle
      ? { workflowBundle: extra.workflowBundle }
      : { workflowsPath: extra.workflowsPath ?? workflowsPath }),
  });
  const close = async () => {
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
