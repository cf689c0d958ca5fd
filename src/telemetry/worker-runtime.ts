import { Runtime, makeTelemetryFilterString } from '@temporalio/worker';
import type { GateConfig } from '../config.js';
import { durationBuckets } from './activity-telemetry.js';
import { jsonLogger } from './json-logger.js';

/**
 * Installs the worker process's Temporal runtime before anything connects: JSON log lines (the
 * SDK core's own forwarded into the same stream) and, when a port is configured, one Prometheus
 * endpoint with the SDK's series and the gate's.
 */
export function installWorkerRuntime(config: GateConfig): void {
  const prometheus = config.workerMetrics && {
    bindAddress: `${config.workerMetrics.host}:${config.workerMetrics.port}`,
    useSecondsForDurations: true,
    histogramBucketOverrides: Object.fromEntries(
      Object.entries(durationBuckets).map(([name, buckets]) => [name, [...buckets]]),
    ),
  };
  Runtime.install({
    logger: jsonLogger(config.api.logLevel),
    telemetryOptions: {
      logging: { forward: {}, filter: makeTelemetryFilterString({ core: 'WARN' }) },
      ...(prometheus && { metrics: { prometheus } }),
    },
  });
}
