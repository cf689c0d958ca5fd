import { postgresUrl } from './devstack/postgres-cluster.js';
import { loadStackConfig, stackProfile } from './devstack/stack-config.js';
import { temporalAddress } from './devstack/temporal-server.js';

/** What the worker and the API run with: the environment, else the dev stack's values. */
export interface RuntimeConfig {
  databaseUrl: string;
  temporalAddress: string;
  namespace: string;
  taskQueue: string;
  apiHost: string;
  apiPort: number;
  /** The operator's bearer key. The API refuses to start without one. */
  operatorKey: string | undefined;
  /** The base URL approvers reach the API at, for links in answers. */
  publicUrl: string;
  /** How often a paused call re-reads its approval when no signal wakes it. */
  approvalRecheckS: number;
  /** How the cheap gate stages run (GATE_STAGE_ACTIVITIES): local activities, or regular ones. */
  stageActivities: 'local' | 'remote';
  /** 32 random bytes, base64: seals connection credentials at rest. */
  sealingKey: string | undefined;
  /** A proxied model request gives up after this long without a byte from the provider. */
  modelIdleTimeoutS: number;
  /** ...and after this long in all, however the provider trickles. */
  modelTimeoutS: number;
}

function secondsOf(env: NodeJS.ProcessEnv, name: string, fallback: number, max: number): number {
  const value = Number(env[name] ?? fallback);
  if (!Number.isFinite(value) || value < 0.1 || value > max) {
    throw new Error(`${name} must be a number of seconds from 0.1 to ${max}`);
  }
  return value;
}

function stageActivitiesOf(value: string | undefined): 'local' | 'remote' {
  if (value === undefined || value === '' || value === 'local') return 'local';
  if (value === 'remote') return 'remote';
  throw new Error(`GATE_STAGE_ACTIVITIES must be "local" or "remote", not "${value}"`);
}

export function runtimeConfig(env: NodeJS.ProcessEnv = process.env): RuntimeConfig {
  const dev = stackProfile(loadStackConfig(), 'dev');
  const apiHost = env.GATE_API_HOST ?? dev.api.host;
  const apiPort = env.GATE_API_PORT ? Number(env.GATE_API_PORT) : dev.api.port;
  if (!Number.isInteger(apiPort) || apiPort < 0 || apiPort > 65535) {
    throw new Error(`GATE_API_PORT must be a port number, not "${env.GATE_API_PORT ?? ''}"`);
  }
  const approvalRecheckS = Number(env.GATE_APPROVAL_RECHECK_S ?? 10);
  if (!Number.isFinite(approvalRecheckS) || approvalRecheckS < 0.1 || approvalRecheckS > 3600) {
    throw new Error('GATE_APPROVAL_RECHECK_S must be a number of seconds from 0.1 to 3600');
  }
  return {
    approvalRecheckS,
    modelIdleTimeoutS: secondsOf(env, 'GATE_MODEL_IDLE_TIMEOUT_S', 120, 3600),
    modelTimeoutS: secondsOf(env, 'GATE_MODEL_TIMEOUT_S', 900, 86_400),
    sealingKey: env.GATE_SEALING_KEY,
    stageActivities: stageActivitiesOf(env.GATE_STAGE_ACTIVITIES),
    databaseUrl: env.DATABASE_URL ?? postgresUrl(dev),
    temporalAddress: env.TEMPORAL_ADDRESS ?? temporalAddress(dev),
    namespace: env.TEMPORAL_NAMESPACE ?? dev.temporal.namespace,
    taskQueue: env.GATE_TASK_QUEUE ?? dev.temporal.taskQueue,
    apiHost,
    apiPort,
    operatorKey: env.GATE_OPERATOR_KEY,
    publicUrl: env.GATE_PUBLIC_URL ?? `http://${apiHost}:${apiPort}`,
  };
}
