/**
 * The one configuration of the worker and the API: the environment, validated once at start-up.
 * `npm run dev` and `npm test` set these variables for the processes they start; anywhere else
 * they come from the deployment. A wrong or missing value stops the process, naming the variable.
 */
import { z } from 'zod';

const portError = 'must be a port number from 0 to 65535';
const port = z.coerce
  .number({ error: portError })
  .int(portError)
  .min(0, portError)
  .max(65535, portError);
const seconds = (min: number, max: number) => {
  const error = `must be a number of seconds from ${min} to ${max}`;
  return z.coerce.number({ error }).min(min, error).max(max, error);
};

const environmentSchema = z.object({
  DATABASE_URL: z
    .string({ error: 'must be set to a PostgreSQL URL' })
    .regex(/^postgres(ql)?:\/\//, 'must be a PostgreSQL URL (postgres://…)'),
  TEMPORAL_ADDRESS: z
    .string({ error: 'must be set to the Temporal frontend, host:port' })
    .regex(/^(\[[0-9A-Fa-f:.]+\]|[^\s:/[\]]+):\d{1,5}$/, 'must be host:port'),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  GATE_TASK_QUEUE: z.string().min(1).default('fluidbox-gate'),
  GATE_API_HOST: z.string().min(1).default('127.0.0.1'),
  GATE_API_PORT: port.default(8080),
  GATE_PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
  GATE_OPERATOR_KEY: z.string().min(16, 'must be a secret of at least 16 characters').optional(),
  GATE_SEALING_KEY: z.string().optional(),
  GATE_APPROVAL_RECHECK_S: seconds(0.1, 3600).default(10),
  GATE_STAGE_ACTIVITIES: z.enum(['local', 'remote']).default('local'),
  GATE_EAGER_START: z.enum(['on', 'off']).default('on'),
  GATE_RESERVATION_TTL_S: z.coerce
    .number({ error: 'must be a positive number of seconds' })
    .positive('must be a positive number of seconds')
    .default(900),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  GATE_WORKFLOW_BUNDLE: z.string().optional(),
  GATE_MODEL_IDLE_TIMEOUT_S: seconds(0.1, 3600).default(120),
  GATE_MODEL_TIMEOUT_S: seconds(0.1, 86_400).default(900),
});

/** Where the gate workflows run. (Room here for a cluster's TLS and API key.) */
export interface TemporalConfig {
  address: string;
  namespace: string;
  taskQueue: string;
}

export interface GateConfig {
  databaseUrl: string;
  temporal: TemporalConfig;
  api: {
    host: string;
    port: number;
    /** The base URL approvers reach the API at, for links in answers. */
    publicUrl: string;
    /** The operator's bearer key. The API refuses to start without one. */
    operatorKey: string | undefined;
    logLevel: string;
  };
  /** How often a paused call re-reads its approval when no signal wakes it. */
  approvalRecheckS: number;
  /** How the cheap gate stages run: local activities, or regular ones on any worker. */
  stageActivities: 'local' | 'remote';
  /** Whether the API hosts a gate worker and starts each call's workflow on it eagerly. */
  eagerStart: boolean;
  /** 32 random bytes, base64: seals connection credentials at rest. */
  sealingKey: string | undefined;
  /** When an undrained model reservation expires and its hold is released. */
  reservationTtlS: number;
  /** A workflow bundle built beforehand (`npm run bundle`): the worker starts without bundling. */
  workflowBundlePath: string | undefined;
  /** The bounds of one proxied model request: without a byte from the provider, and in all. */
  modelProxy: { idleTimeoutMs: number; totalTimeoutMs: number };
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** An empty variable counts as unset, as shells and container specs often leave them. */
function setVariables(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => Boolean(entry[1])),
  );
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): GateConfig {
  const result = environmentSchema.safeParse(setVariables(env));
  if (!result.success) {
    const lines = result.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`the environment has wrong or missing values:\n${lines.join('\n')}`);
  }
  const e = result.data;
  return {
    databaseUrl: e.DATABASE_URL,
    temporal: {
      address: e.TEMPORAL_ADDRESS,
      namespace: e.TEMPORAL_NAMESPACE,
      taskQueue: e.GATE_TASK_QUEUE,
    },
    api: {
      host: e.GATE_API_HOST,
      port: e.GATE_API_PORT,
      publicUrl: e.GATE_PUBLIC_URL ?? `http://${e.GATE_API_HOST}:${e.GATE_API_PORT}`,
      operatorKey: e.GATE_OPERATOR_KEY,
      logLevel: e.LOG_LEVEL,
    },
    approvalRecheckS: e.GATE_APPROVAL_RECHECK_S,
    stageActivities: e.GATE_STAGE_ACTIVITIES,
    eagerStart: e.GATE_EAGER_START === 'on',
    sealingKey: e.GATE_SEALING_KEY,
    reservationTtlS: e.GATE_RESERVATION_TTL_S,
    workflowBundlePath: e.GATE_WORKFLOW_BUNDLE,
    modelProxy: {
      idleTimeoutMs: e.GATE_MODEL_IDLE_TIMEOUT_S * 1000,
      totalTimeoutMs: e.GATE_MODEL_TIMEOUT_S * 1000,
    },
  };
}

/** The configuration, or the process stops with what is wrong (for entry points). */
export function configOrExit(env: NodeJS.ProcessEnv = process.env): GateConfig {
  try {
    return loadConfig(env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`${err.message}\n`);
    process.exit(1);
  }
}
