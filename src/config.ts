/**
 * The one configuration of the worker and the API: the environment, validated once at start-up.
 * `npm run dev` and `npm test` set these variables for the processes they start; anywhere else
 * they come from the deployment. A wrong or missing value stops the process, naming the variable.
 */
import { readFileSync } from 'node:fs';
import { loadClientConfigProfile, toClientOptions } from '@temporalio/envconfig';
import type { NativeConnectionOptions } from '@temporalio/worker';
import { z } from 'zod';
import { parsePayloadKeys, type PayloadKey } from './domain/secrets/payload-keys.js';
import { GateError } from './domain/errors.js';

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

const wholeNumber = (min: number, max: number) => {
  const error = `must be a whole number from ${min} to ${max}`;
  return z.coerce.number({ error }).int(error).min(min, error).max(max, error);
};

const filePath = z
  .string()
  .min(1)
  .transform((file, ctx) => {
    try {
      return readFileSync(file);
    } catch (err) {
      ctx.addIssue({
        code: 'custom',
        message: `must name a readable file (${(err as Error).message})`,
      });
      return z.NEVER;
    }
  });
const flag = z.enum(['true', 'false'], { error: 'must be true or false' });

/**
 * ID token claims a person or the provider's administrators may change: none names a person for
 * good, so none may be what a provisioned User's `externalId` is matched against.
 */
const mutableClaims = new Set([
  'email',
  'preferred_username',
  'upn',
  'unique_name',
  'name',
  'nickname',
  'given_name',
  'family_name',
  'phone_number',
]);

/** A Temporal cluster, named as Temporal's own clients name it in the environment. */
const temporalSchema = {
  TEMPORAL_ADDRESS: z
    .string({ error: 'must be set to the Temporal frontend, host:port' })
    .regex(/^(\[[0-9A-Fa-f:.]+\]|[^\s:/[\]]+):\d{1,5}$/, 'must be host:port'),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  TEMPORAL_API_KEY: z.string().min(1).optional(),
  TEMPORAL_TLS: flag.optional(),
  TEMPORAL_TLS_CLIENT_CERT_PATH: filePath.optional(),
  TEMPORAL_TLS_CLIENT_KEY_PATH: filePath.optional(),
  TEMPORAL_TLS_SERVER_CA_CERT_PATH: filePath.optional(),
  TEMPORAL_TLS_SERVER_NAME: z.string().min(1).optional(),
  TEMPORAL_CONFIG_FILE: filePath.optional(),
  TEMPORAL_TLS_DISABLE_HOST_VERIFICATION: z
    .literal('false', { error: 'is not supported: name the server with TEMPORAL_TLS_SERVER_NAME' })
    .optional(),
};

const environmentSchema = z.object({
  DATABASE_URL: z
    .string({ error: 'must be set to a PostgreSQL URL' })
    .regex(/^postgres(ql)?:\/\//, 'must be a PostgreSQL URL (postgres://…)'),
  ...temporalSchema,
  GATE_TASK_QUEUE: z.string().min(1).default('fluidbox-gate'),
  GATE_API_HOST: z.string().min(1).default('127.0.0.1'),
  GATE_API_PORT: port.default(8080),
  GATE_PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
  GATE_OPERATOR_KEY: z.string().min(16, 'must be a secret of at least 16 characters').optional(),
  GATE_SEALING_KEY: z.string().optional(),
  GATE_APPROVAL_RECHECK_S: seconds(0.1, 3600).default(300),
  GATE_APPROVAL_RECHECK_MAX_S: seconds(0.1, 86_400).default(3600),
  GATE_MCP_APPROVAL_WAIT_S: seconds(0, 600).default(25),
  GATE_WORKER_CACHED_WORKFLOWS: wholeNumber(2, 100_000).default(250),
  GATE_HEAP_GROWTH_PERCENT: wholeNumber(0, 1000).default(25),
  GATE_EAGER_START: z.enum(['on', 'off']).default('on'),
  GATE_RESERVATION_TTL_S: z.coerce
    .number({ error: 'must be a positive number of seconds' })
    .positive('must be a positive number of seconds')
    .optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  GATE_WORKFLOW_BUNDLE: z.string().optional(),
  GATE_HTTP_HEADERS_TIMEOUT_S: seconds(0.1, 600).default(10),
  GATE_HTTP_REQUEST_TIMEOUT_S: seconds(0.1, 3600).default(60),
  GATE_HTTP_IDLE_TIMEOUT_S: seconds(0.1, 3600).default(30),
  GATE_HTTP_KEEP_ALIVE_TIMEOUT_S: seconds(0.1, 3600).default(72),
  GATE_STREAM_DRAIN_TIMEOUT_S: seconds(0.1, 3600).default(30),
  GATE_MODEL_IDLE_TIMEOUT_S: seconds(0.1, 3600).default(120),
  GATE_MODEL_TIMEOUT_S: seconds(0.1, 86_400).default(900),
  GATE_MODEL_WRITE_DEADLINE_S: seconds(0.1, 3600).default(30),
  GATE_MODEL_CONCURRENT_PER_RUN: wholeNumber(1, 10_000).default(16),
  GATE_MODEL_COUNT_TOKENS_PER_MINUTE: wholeNumber(1, 100_000).default(60),
  GATE_PAYLOAD_KEYS: z
    .string({ error: 'must be set to the payload keys, id:base64 of 32 bytes, current first' })
    .transform((text, ctx) => {
      try {
        return parsePayloadKeys(text);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
        return z.NEVER;
      }
    }),
  GATE_CODEC_CORS_ORIGINS: z
    .string()
    .transform((text) => text.split(',').map((origin) => origin.trim()))
    .pipe(z.array(z.url({ protocol: /^https?$/ }).regex(/^[^/]+\/\/[^/]+$/, 'must be origins')))
    .default([]),
  GATE_WORKER_METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  GATE_WORKER_METRICS_PORT: port.optional(),
  GATE_PG_CONNECT_TIMEOUT_S: seconds(0.1, 60).default(3),
  GATE_PG_STATEMENT_TIMEOUT_S: seconds(0.1, 600).default(4),
  GATE_PG_QUERY_TIMEOUT_S: seconds(0.1, 600).default(5),
  GATE_TEMPORAL_CALL_TIMEOUT_S: seconds(0.1, 60).default(5),
  GATE_UNAVAILABLE_WINDOW_S: seconds(1, 3600).default(45),
  GATE_OIDC_ISSUER: z.url({ protocol: /^https?$/ }).optional(),
  GATE_OIDC_CLIENT_ID: z.string().min(1).optional(),
  GATE_OIDC_CLIENT_SECRET: z.string().min(1).optional(),
  GATE_OIDC_EXTERNAL_ID_CLAIM: z
    .string()
    .regex(/^[A-Za-z0-9_:.-]{1,64}$/, 'a claim name: letters, digits, _ : . -, at most 64')
    .refine((claim) => !mutableClaims.has(claim.toLowerCase()), {
      error: 'a claim a person or an administrator may change names nobody: use an id (oid, sub)',
    })
    .optional(),
  GATE_TOKEN_SIGNIN: z.enum(['on', 'off']).default('on'),
  GATE_WEB_SESSION_IDLE_S: seconds(10, 86_400).default(1800),
  GATE_WEB_SESSION_MAX_S: seconds(60, 30 * 86_400).default(8 * 3600),
  GATE_SIMULATION_DEADLINE_S: seconds(1, 600).default(20),
  GATE_SIMULATIONS_AT_ONCE: wholeNumber(1, 64).default(2),
  GATE_BROKER_CALLS_PER_WORKSPACE: wholeNumber(1, 50).default(20),
  GATE_BROKER_DNS_SERVERS: z
    .string()
    .transform((text) => text.split(',').map((server) => server.trim()))
    .pipe(
      z.array(
        z
          .string()
          .regex(
            /^(\d{1,3}(\.\d{1,3}){3}(:\d{1,5})?|[0-9A-Fa-f:]+|\[[0-9A-Fa-f:]+\](:\d{1,5})?)$/,
            'must be DNS servers: ip or ip:port ([ipv6]:port), comma-separated',
          ),
      ),
    )
    .optional(),
});

type Environment = z.infer<typeof environmentSchema>;

/** TLS to the Temporal frontend: the server's CA and name, and for mTLS the client's pair. */
export interface TemporalTls {
  serverRootCACertificate?: Uint8Array;
  serverNameOverride?: string;
  clientCertPair?: { crt: Uint8Array; key: Uint8Array };
}

/** Where the gate workflows run, and how to reach it: plain, TLS, mTLS or an API key. */
export interface TemporalConfig {
  address: string;
  namespace: string;
  taskQueue: string;
  /** Absent: plain gRPC (a dev server). */
  tls?: TemporalTls;
  apiKey?: string;
  /** gRPC metadata sent with every call (`TEMPORAL_GRPC_META_*`). */
  metadata?: NativeConnectionOptions['metadata'];
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
  /** When a paused call first re-reads its approval unwoken, and the longest wait later. */
  approvalRecheckS: number;
  approvalRecheckMaxS: number;
  /**
   * How long a plain `tools/call` on `/mcp` waits for a person before answering "call again":
   * below common MCP clients' request timeouts.
   */
  mcpApprovalWaitS: number;
  /** Workflows a worker keeps in memory between tasks; the rest are replayed when woken. */
  workerCachedWorkflows: number;
  /**
   * How far a process's JavaScript heap may grow past what it kept live at its last full
   * collection before it collects again, in percent; 0 leaves it to V8 (see `boundHeapGrowth`).
   */
  heapGrowthPercent: number;
  /** Whether the API hosts a gate worker and starts each call's workflow on it eagerly. */
  eagerStart: boolean;
  /** 32 random bytes, base64: seals connection credentials at rest. */
  sealingKey: string | undefined;
  /**
   * When an unsettled model reservation expires, charged at its booking: always past the
   * longest proxied request the configuration allows, so a request in flight is never expired.
   */
  reservationTtlS: number;
  /** A workflow bundle built beforehand (`npm run bundle`): the worker starts without bundling. */
  workflowBundlePath: string | undefined;
  /** The HTTP server's bounds on a client (see `HttpBounds`). */
  http: HttpBounds;
  /**
   * The bounds of one proxied model request: without a byte from the provider, in all, and for
   * a client to take one write; and how many count_tokens requests a run may make a minute.
   */
  modelProxy: ModelProxyLimits;
  /** The keys that encrypt payloads in Temporal history: the first encrypts, all decrypt. */
  payloadKeys: PayloadKey[];
  /** The origins (the Temporal UI's) allowed to call the codec endpoint from a browser. */
  codecCorsOrigins: string[];
  /** Where a worker serves its Prometheus metrics (the SDK's and the gate's); unset: nowhere. */
  workerMetrics: { host: string; port: number } | undefined;
  /**
   * Every wait on PostgreSQL is bounded, well below the API's wait for the gate, so a request
   * meeting a PostgreSQL that stopped answering is a 503 within seconds (see docs/operations.md,
   * "When a dependency fails").
   */
  postgresBounds: { connectMs: number; statementMs: number; queryMs: number };
  /** How long one call to Temporal (a start, a signal) may take before the API answers 503. */
  temporalCallTimeoutMs: number;
  /**
   * How long a stage keeps trying to reach its data (PostgreSQL away, or too slow) before the
   * call fails closed with source `unavailable`.
   */
  unavailableWindowS: number;
  /** How people sign in to the web app, and how long a sign-in lasts. */
  web: WebSignIn;
  /** How long one simulation may run, and how many an API process runs at once. */
  simulation: { deadlineMs: number; atOnce: number };
  /**
   * The DNS servers the broker asks for the addresses of connections' servers (ip or ip:port);
   * unset: the system's resolver. Every address is checked against the connection's reach.
   */
  brokerDnsServers: string[] | undefined;
  /**
   * How many brokered calls of one workspace a worker process carries out at once: a workspace
   * whose servers stall holds no more of the worker's activity slots (100) than this, at most half.
   */
  brokerCallsPerWorkspace: number;
}

/** The relying party of the company's identity provider (OpenID Connect). */
export interface OidcClientConfig {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The ID token's claim a provisioned User's `externalId` is compared with (unset: `sub`). */
  externalIdClaim?: string;
}

export interface WebSignIn {
  /** Unset: people sign in with a token only. */
  oidc: OidcClientConfig | undefined;
  /** Whether a user token may be pasted into the sign-in form (automation, development). */
  tokenSignIn: boolean;
  /** A web session ends after this long unused, and in any case this long after sign-in. */
  sessionIdleS: number;
  sessionMaxS: number;
}

export interface ModelProxyLimits {
  idleTimeoutMs: number;
  totalTimeoutMs: number;
  writeDeadlineMs: number;
  countTokensPerMinute: number;
  /** How many model requests one run may have in flight in one API process. */
  concurrentPerRun: number;
}

/**
 * What a reservation outlives beyond the longest request: the settlement's own retries (90 s,
 * `src/api/model-exchange.ts`) and half a minute more.
 */
const reservationSettleMarginS = 120;

/**
 * What the API's HTTP server allows a client, so that a slow or stalled one holds a connection
 * for a bounded time: the headers, then the whole request, must arrive within their bounds; while
 * a request arrives or a response is read, the connection may make no progress for at most the
 * idle bound (a route's own work, a wait or a stream, is bounded by the route); an idle
 * keep-alive connection is closed after its bound; an event stream whose reader takes nothing
 * for the drain bound is closed (the reader resumes with Last-Event-ID).
 */
export interface HttpBounds {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  idleTimeoutMs: number;
  keepAliveTimeoutMs: number;
  streamDrainTimeoutMs: number;
}

export class ConfigError extends GateError {
  override name = 'ConfigError';
  readonly code = 'invalid_config';
}

/** What stops start-up: each line names a variable at fault. */
function refusal(...lines: string[]): ConfigError {
  const listed = lines.map((line) => `  ${line}`).join('\n');
  return new ConfigError(`the environment has wrong or missing values:\n${listed}`);
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
    throw refusal(
      ...result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`),
    );
  }
  const e = result.data;
  // A relay may wait the whole timeout for the provider, then one write deadline for its client.
  const longestRequestS =
    e.GATE_MODEL_TIMEOUT_S + e.GATE_MODEL_WRITE_DEADLINE_S + reservationSettleMarginS;
  if (e.GATE_RESERVATION_TTL_S !== undefined && e.GATE_RESERVATION_TTL_S < longestRequestS) {
    throw new ConfigError(
      `the environment has wrong or missing values:\n  GATE_RESERVATION_TTL_S: must be at least GATE_MODEL_TIMEOUT_S + GATE_MODEL_WRITE_DEADLINE_S + ${reservationSettleMarginS} (${longestRequestS}): a reservation must outlive the longest model request`,
    );
  }
  // While the relay waits for a slow client it does not read the provider, whose idle bound
  // would then cut an answer the provider is still sending.
  if (e.GATE_MODEL_WRITE_DEADLINE_S >= e.GATE_MODEL_IDLE_TIMEOUT_S) {
    throw new ConfigError(
      'the environment has wrong or missing values:\n  GATE_MODEL_WRITE_DEADLINE_S: must be shorter than GATE_MODEL_IDLE_TIMEOUT_S',
    );
  }
  return {
    databaseUrl: e.DATABASE_URL,
    temporal: temporalConfig(e, setVariables(env)),
    api: {
      host: e.GATE_API_HOST,
      port: e.GATE_API_PORT,
      publicUrl: e.GATE_PUBLIC_URL ?? `http://${e.GATE_API_HOST}:${e.GATE_API_PORT}`,
      operatorKey: e.GATE_OPERATOR_KEY,
      logLevel: e.LOG_LEVEL,
    },
    approvalRecheckS: e.GATE_APPROVAL_RECHECK_S,
    approvalRecheckMaxS: Math.max(e.GATE_APPROVAL_RECHECK_S, e.GATE_APPROVAL_RECHECK_MAX_S),
    mcpApprovalWaitS: e.GATE_MCP_APPROVAL_WAIT_S,
    workerCachedWorkflows: e.GATE_WORKER_CACHED_WORKFLOWS,
    heapGrowthPercent: e.GATE_HEAP_GROWTH_PERCENT,
    eagerStart: e.GATE_EAGER_START === 'on',
    sealingKey: e.GATE_SEALING_KEY,
    reservationTtlS: e.GATE_RESERVATION_TTL_S ?? longestRequestS,
    workflowBundlePath: e.GATE_WORKFLOW_BUNDLE,
    http: {
      headersTimeoutMs: e.GATE_HTTP_HEADERS_TIMEOUT_S * 1000,
      // Node refuses a headers bound past the request's: the headers are part of the request.
      requestTimeoutMs:
        Math.max(e.GATE_HTTP_HEADERS_TIMEOUT_S, e.GATE_HTTP_REQUEST_TIMEOUT_S) * 1000,
      idleTimeoutMs: e.GATE_HTTP_IDLE_TIMEOUT_S * 1000,
      keepAliveTimeoutMs: e.GATE_HTTP_KEEP_ALIVE_TIMEOUT_S * 1000,
      streamDrainTimeoutMs: e.GATE_STREAM_DRAIN_TIMEOUT_S * 1000,
    },
    modelProxy: {
      idleTimeoutMs: e.GATE_MODEL_IDLE_TIMEOUT_S * 1000,
      totalTimeoutMs: e.GATE_MODEL_TIMEOUT_S * 1000,
      writeDeadlineMs: e.GATE_MODEL_WRITE_DEADLINE_S * 1000,
      countTokensPerMinute: e.GATE_MODEL_COUNT_TOKENS_PER_MINUTE,
      concurrentPerRun: e.GATE_MODEL_CONCURRENT_PER_RUN,
    },
    payloadKeys: e.GATE_PAYLOAD_KEYS,
    codecCorsOrigins: e.GATE_CODEC_CORS_ORIGINS,
    workerMetrics:
      e.GATE_WORKER_METRICS_PORT === undefined
        ? undefined
        : { host: e.GATE_WORKER_METRICS_HOST, port: e.GATE_WORKER_METRICS_PORT },
    postgresBounds: postgresBounds(e),
    temporalCallTimeoutMs: e.GATE_TEMPORAL_CALL_TIMEOUT_S * 1000,
    unavailableWindowS: e.GATE_UNAVAILABLE_WINDOW_S,
    web: {
      oidc: oidcClientConfig(e),
      tokenSignIn: e.GATE_TOKEN_SIGNIN === 'on',
      sessionIdleS: Math.min(e.GATE_WEB_SESSION_IDLE_S, e.GATE_WEB_SESSION_MAX_S),
      sessionMaxS: e.GATE_WEB_SESSION_MAX_S,
    },
    simulation: {
      deadlineMs: e.GATE_SIMULATION_DEADLINE_S * 1000,
      atOnce: e.GATE_SIMULATIONS_AT_ONCE,
    },
    brokerDnsServers: e.GATE_BROKER_DNS_SERVERS,
    brokerCallsPerWorkspace: e.GATE_BROKER_CALLS_PER_WORKSPACE,
  };
}

/** The three variables name one client at one provider: all of them or none. */
function oidcClientConfig(e: Environment): OidcClientConfig | undefined {
  const { GATE_OIDC_ISSUER: issuer, GATE_OIDC_CLIENT_ID: clientId } = e;
  const clientSecret = e.GATE_OIDC_CLIENT_SECRET;
  const externalIdClaim = e.GATE_OIDC_EXTERNAL_ID_CLAIM;
  if (issuer && clientId && clientSecret) {
    return { issuer, clientId, clientSecret, ...(externalIdClaim && { externalIdClaim }) };
  }
  if (externalIdClaim !== undefined && !issuer) {
    throw refusal('GATE_OIDC_EXTERNAL_ID_CLAIM: only with GATE_OIDC_ISSUER');
  }
  if (issuer || clientId || clientSecret) {
    throw refusal(
      'GATE_OIDC_ISSUER, GATE_OIDC_CLIENT_ID, GATE_OIDC_CLIENT_SECRET: must be set together',
    );
  }
  return undefined;
}

/** The server cancels a statement before the client stops waiting, keeping the connection. */
function postgresBounds(e: Environment): GateConfig['postgresBounds'] {
  if (e.GATE_PG_STATEMENT_TIMEOUT_S >= e.GATE_PG_QUERY_TIMEOUT_S) {
    throw refusal('GATE_PG_STATEMENT_TIMEOUT_S: must be less than GATE_PG_QUERY_TIMEOUT_S');
  }
  return {
    connectMs: e.GATE_PG_CONNECT_TIMEOUT_S * 1000,
    statementMs: e.GATE_PG_STATEMENT_TIMEOUT_S * 1000,
    queryMs: e.GATE_PG_QUERY_TIMEOUT_S * 1000,
  };
}

/**
 * The cluster as Temporal's own environment configuration reads it (`@temporalio/envconfig`: the
 * `TEMPORAL_*` variables over a profile of `TEMPORAL_CONFIG_FILE`, `TEMPORAL_PROFILE`): any TLS
 * variable, or an API key, turns TLS on unless TEMPORAL_TLS is false. Its files are read here,
 * once; a client certificate comes with its key.
 */
function temporalConfig(e: Environment, env: Record<string, string>): TemporalConfig {
  let profile: ReturnType<typeof loadClientConfigProfile>;
  try {
    // A file only when named: a profile left in a home folder never steers a deployment.
    profile = loadClientConfigProfile({
      overrideEnvVars: env,
      disableFile: env.TEMPORAL_CONFIG_FILE === undefined,
      configFileStrict: true,
    });
  } catch (err) {
    throw refusal(`TEMPORAL_CONFIG_FILE, TEMPORAL_PROFILE: ${profileFailure(err)}`);
  }
  if ((profile.tls?.clientCert === undefined) !== (profile.tls?.clientKey === undefined)) {
    throw refusal(
      'TEMPORAL_TLS_CLIENT_CERT_PATH, TEMPORAL_TLS_CLIENT_KEY_PATH: must be set together (mTLS)',
    );
  }
  const metadata = profile.grpcMeta ?? {};
  if (Object.keys(metadata).some((name) => name.toLowerCase() === 'authorization')) {
    throw refusal('TEMPORAL_GRPC_META_AUTHORIZATION: the API key is TEMPORAL_API_KEY');
  }
  let connect: ReturnType<typeof toClientOptions>;
  try {
    connect = toClientOptions(profile);
  } catch (err) {
    throw refusal(`TEMPORAL_TLS_*: a certificate could not be read (${(err as Error).message})`);
  }
  const { address, apiKey, tls } = connect.connectionOptions;
  return {
    address: address ?? e.TEMPORAL_ADDRESS,
    namespace: connect.namespace ?? 'default',
    taskQueue: e.GATE_TASK_QUEUE,
    ...(typeof apiKey === 'string' && { apiKey }),
    ...(tls && { tls: tls === true ? {} : definedOnly(tls) }),
    ...(Object.keys(metadata).length > 0 && { metadata }),
  };
}

/**
 * Why a profile could not be read, without its text: a TOML parser quotes the lines around its
 * error, and those can hold an API key or a private key.
 */
function profileFailure(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const profile = /^profile '[^']*' not found/i.exec(message);
  if (profile) return profile[0];
  const line = /line (\d+)/i.exec(message);
  return `the file is not a Temporal configuration${line ? ` (line ${line[1]})` : ''}`;
}

function definedOnly<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
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
