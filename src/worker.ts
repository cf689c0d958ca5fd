import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  Worker,
  bundleWorkflowCode,
  type NativeConnection,
  type WorkerOptions,
} from '@temporalio/worker';
import { createActivities, type ActivityDeps } from './activities/index.js';
import { brokerResolver } from './broker/address-reach.js';
import { CredentialSealer } from './broker/sealing.js';
import { configOrExit, type GateConfig } from './config.js';
import { startReservationSweeper } from './store/budget.js';
import { createPool, type Pool } from './store/pool.js';
import { activityTelemetry } from './telemetry/activity-telemetry.js';
import { boundHeapGrowth } from './telemetry/heap-growth.js';
import { installWorkerRuntime } from './telemetry/worker-runtime.js';
import { tracingActivityInterceptors, workflowSpanSinks } from './telemetry/temporal-tracing.js';
import { startTracingOrExit } from './telemetry/tracing.js';
import { gateDataConverter, workerConnection } from './temporal/connections.js';

const here = fileURLToPath(import.meta.url);
const extension = path.extname(here);

/** The workflow source beside this module: TypeScript in development, JavaScript once built. */
export const workflowsPath = path.join(path.dirname(here), `workflows/index${extension}`);
/**
 * Loaded into every gate workflow: request ids on log lines and activity headers; the trace of a
 * traced start carried to its activities.
 */
export const workflowInterceptorModules = [
  path.join(path.dirname(here), `workflows/log-context${extension}`),
  path.join(path.dirname(here), `workflows/tracing${extension}`),
];

/**
 * Evaluated once per worker thread and shared by every workflow it runs, where the SDK otherwise
 * evaluates each module a workflow loads for that workflow alone (its module cache is per
 * workflow): the gate's workflow code, its vocabulary and the SDK's API it imports. Safe because
 * none of them keeps state at module level (a proxy of activities, a message's definition, a
 * constant): what a workflow holds is in its own function's scope.
 */
const sharedWorkflowModules = [workflowsPath, ...workflowInterceptorModules];

/** How the gate's workflow code is bundled for the sandbox, by a worker or beforehand. */
export const gateBundleOptions = {
  workflowsPath,
  workflowInterceptorModules,
  preloadModules: sharedWorkflowModules,
};

/** `npm run build` bundles the workflows beside the compiled worker, which then loads it. */
const builtBundlePath = path.join(path.dirname(here), 'workflow-bundle.js');

/**
 * What a caller may add to a gate worker: a prebuilt bundle, activity interceptors, how many
 * workflow tasks it takes at once (the API's, for eager starts), whom to tell of answers recorded.
 */
export type GateWorkerExtras = Partial<
  Pick<
    WorkerOptions,
    'workflowBundle' | 'workflowsPath' | 'interceptors' | 'maxConcurrentWorkflowTaskExecutions'
  > &
    Pick<ActivityDeps, 'onAnswerRecorded'>
>;

/** The workflow code a worker runs: a bundle given or built beforehand, else the source. */
function workflowCode(
  config: GateConfig,
  extra: GateWorkerExtras,
): Pick<WorkerOptions, 'workflowBundle' | 'workflowsPath' | 'bundlerOptions'> {
  if (extra.workflowBundle) return { workflowBundle: extra.workflowBundle };
  if (config.workflowBundlePath) return { workflowBundle: { codePath: config.workflowBundlePath } };
  if (existsSync(builtBundlePath)) return { workflowBundle: { codePath: builtBundlePath } };
  if (extra.workflowsPath) return { workflowsPath: extra.workflowsPath };
  return { workflowsPath, bundlerOptions: { preloadModules: sharedWorkflowModules } };
}

/** Bundles the workflow code for the sandbox into `file`, for workers to start without bundling. */
export async function bundleWorkflowTo(file: string): Promise<void> {
  const noop = () => undefined;
  const logger = { log: noop, trace: noop, debug: noop, info: noop, warn: noop, error: noop };
  const { code } = await bundleWorkflowCode({ ...gateBundleOptions, logger });
  writeFileSync(file, code);
}

/**
 * A gate worker on a connection the caller owns: the worker process's own, or the API's, whose
 * client then starts workflows eagerly on it.
 */
/** The activities a worker process runs at once. */
const activitySlots = 100;

export function createGateWorkerOn(
  connection: NativeConnection,
  config: GateConfig,
  pool: Pool,
  extra: GateWorkerExtras = {},
): Promise<Worker> {
  const code = workflowCode(config, extra);
  return Worker.create({
    connection,
    dataConverter: gateDataConverter(config.payloadKeys),
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    // Paused calls wait for days; only the ones that move stay in memory (see docs/operations.md).
    maxCachedWorkflows: config.workerCachedWorkflows,
    // Named, not the SDK's default: a workspace's share of brokered calls is at most half of it.
    maxConcurrentActivityTaskExecutions: activitySlots,
    // Each call is a new workflow, its first task on the normal queue (when not started eagerly):
    // the SDK's fixed two pollers there took a burst of calls two at a time on a busy machine.
    workflowTaskPollerBehavior: { type: 'autoscaling' },
    ...(extra.maxConcurrentWorkflowTaskExecutions !== undefined && {
      maxConcurrentWorkflowTaskExecutions: extra.maxConcurrentWorkflowTaskExecutions,
    }),
    activities: createActivities({
      pool,
      publicUrl: config.api.publicUrl,
      sealer: CredentialSealer.fromBase64(config.sealingKey),
      resolve: brokerResolver(config.brokerDnsServers),
      brokerCallsPerWorkspace: config.brokerCallsPerWorkspace,
      onAnswerRecorded: extra.onAnswerRecorded,
    }),
    ...code,
    interceptors: {
      // A bundle carries its workflow interceptors already (see bundleWorkflowTo).
      ...(code.workflowsPath && { workflowModules: workflowInterceptorModules }),
      // Tracing's first: the gate's telemetry then annotates the activity's span.
      activity: [
        ...tracingActivityInterceptors(),
        activityTelemetry,
        ...(extra.interceptors?.activity ?? []),
      ],
    },
    sinks: workflowSpanSinks(),
  });
}

/** Creates a gate worker and starts the reservation sweep; the caller runs it, then closes. */
export async function createGateWorker(config: GateConfig, extra: GateWorkerExtras = {}) {
  const expireAfterMs = config.reservationTtlS * 1000;
  const pool = createPool(config.databaseUrl, config.postgresBounds);
  const connection = await workerConnection(config.temporal);
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
  installWorkerRuntime(config);
  const tracing = startTracingOrExit('fluidbox-gate-worker');
  const { worker, close } = await createGateWorker(config, extra);
  process.stderr.write(`worker polling task queue ${worker.options.taskQueue}\n`);
  await worker.run();
  await close();
  await tracing?.shutdown();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const config = configOrExit();
  boundHeapGrowth(config.heapGrowthPercent);
  await runGateWorker(config);
}
