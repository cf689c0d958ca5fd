import { postgresUrl } from './postgres-cluster.js';
import { loadStackConfig, stackProfile, type StackProfile } from './stack-config.js';
import { payloadKeys } from './stack-keys.js';
import { temporalAddress, temporalUiOrigin } from './temporal-server.js';

export { temporalUiOrigin };

/**
 * The environment the gate's processes need to run on a stack of temporal-dev.yaml: the one
 * place where the dev stack's values become the configuration (src/config.ts) reads.
 */
export function stackEnvironment(
  profile: StackProfile,
  databaseUrl = postgresUrl(profile),
): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: temporalAddress(profile),
    TEMPORAL_NAMESPACE: profile.temporal.namespace,
    GATE_TASK_QUEUE: profile.temporal.taskQueue,
    GATE_API_HOST: profile.api.host,
    GATE_API_PORT: String(profile.api.port),
    GATE_CODEC_CORS_ORIGINS: temporalUiOrigin(profile),
  };
}

/** For operator commands beside `npm run dev`: the dev stack's values, under the environment's. */
export function withDevStackDefaults(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const profile = stackProfile(loadStackConfig(), 'dev');
  return { ...stackEnvironment(profile), GATE_PAYLOAD_KEYS: payloadKeys(profile), ...env };
}
