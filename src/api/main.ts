import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { runtimeConfig, type RuntimeConfig } from '../runtime-config.js';
import { createPool } from '../store/pool.js';
import { CredentialSealer } from '../broker/sealing.js';
import { Authenticator } from './auth.js';
import { LedgerNotifier } from './ledger-notifier.js';
import { createMetrics } from './metrics.js';
import { buildApi, type ApiLogger } from './server.js';

/** Builds the API with its own pool and a lazy Temporal connection (it starts with Temporal down). */
export function createApi(
  config: RuntimeConfig & { operatorKey: string },
  { logger = false, gateWaitMs = 30_000 }: { logger?: ApiLogger; gateWaitMs?: number } = {},
) {
  const pool = createPool(config.databaseUrl);
  const connection = Connection.lazy({ address: config.temporalAddress });
  const temporal = new Client({ connection, namespace: config.namespace });
  const ledger = new LedgerNotifier(config.databaseUrl);
  const inFlight = new Set<Promise<unknown>>();
  ledger.start();
  const app = buildApi(
    {
      pool,
      temporal,
      taskQueue: config.taskQueue,
      publicUrl: config.publicUrl,
      auth: new Authenticator(pool, config.operatorKey),
      metrics: createMetrics(),
      gateWaitMs,
      approvalRecheckS: config.approvalRecheckS,
      stageActivities: config.stageActivities,
      modelProxy: {
        idleTimeoutMs: config.modelIdleTimeoutS * 1000,
        totalTimeoutMs: config.modelTimeoutS * 1000,
      },
      ledger,
      sealer: CredentialSealer.fromBase64(config.sealingKey),
      inFlight,
    },
    { logger },
  );
  app.addHook('onClose', async () => {
    await Promise.allSettled([...inFlight]);
    await ledger.close();
    await connection.close();
    await pool.end();
  });
  return app;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const config = runtimeConfig();
  const { operatorKey } = config;
  if (!operatorKey || operatorKey.length < 16) {
    process.stderr.write('GATE_OPERATOR_KEY must be set to a secret of at least 16 characters\n');
    process.exit(1);
  }
  const app = createApi(
    { ...config, operatorKey },
    { logger: { level: process.env.LOG_LEVEL ?? 'info' } },
  );
  await app.listen({ host: config.apiHost, port: config.apiPort });
  const shutdown = () => {
    void app.close().then(() => process.exit(0));
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}
