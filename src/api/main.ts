import { fileURLToPath } from 'node:url';
import { brokerResolver } from '../broker/address-reach.js';
import { CredentialSealer } from '../broker/sealing.js';
import { configOrExit, type GateConfig } from '../config.js';
import { LocalAnswers } from '../application/tool-call/local-answers.js';
import { ToolCalls } from '../application/tool-call/tool-calls.js';
import { SimulationThreads } from '../application/simulation-thread.js';
import { createPool } from '../store/pool.js';
import { GateWorkflowClient } from '../temporal/gate-workflow-client.js';
import { boundHeapGrowth } from '../telemetry/heap-growth.js';
import { startTracingOrExit } from '../telemetry/tracing.js';
import { EncryptionCodec } from '../temporal/payload-codec.js';
import { HostedWorker } from '../temporal/hosted-worker.js';
import { createGateWorkerOn } from '../worker.js';
import { Authenticator } from './auth.js';
import { CallerSlots, callerLimits } from './caller-slots.js';
import { createMetrics } from './metrics.js';
import { buildApi, type ApiLogger } from './server.js';
import { WaitNotifications } from './wait-notifications.js';
import { OidcRelyingParty } from './web/oidc-relying-party.js';

/** The connections an API process keeps for settling proxied model requests (`ApiContext`). */
const settlementConnections = 4;

/** Builds the API with its own pool and a lazy Temporal connection (it starts with Temporal down). */
export function createApi(
  config: GateConfig,
  operatorKey: string,
  { logger = false, gateWaitMs = 30_000 }: { logger?: ApiLogger; gateWaitMs?: number } = {},
) {
  const pool = createPool(config.databaseUrl, config.postgresBounds);
  const settlements = createPool(config.databaseUrl, {
    ...config.postgresBounds,
    max: settlementConnections,
  });
  // The API hosts a gate worker so that each call's workflow starts on it eagerly; its stages
  // read through a pool of their own, so a burst of calls never starves the API's requests.
  const workerPool = config.eagerStart
    ? createPool(config.databaseUrl, config.postgresBounds)
    : undefined;
  const localAnswers = new LocalAnswers();
  const hosted = workerPool
    ? new HostedWorker(config, (connection) =>
        createGateWorkerOn(connection, config, workerPool, {
          // As many tasks at once as workflows in memory (the SDK's default is 40): an eager
          // start needs a free slot here, and one refused goes through the server's dispatch to
          // any worker, at twice the cost (see docs/performance.md).
          maxConcurrentWorkflowTaskExecutions: config.workerCachedWorkflows,
          onAnswerRecorded: (request, answer) => {
            localAnswers.deliver(request.session_id, request.tool_call_id, answer);
          },
        }),
      )
    : undefined;
  const threads = new SimulationThreads(config.simulation.atOnce);
  const gate = GateWorkflowClient.lazy(config, hosted);
  const notifications = new WaitNotifications(config.databaseUrl, pool, {
    connectMs: config.postgresBounds.connectMs,
  });
  notifications.start();
  const app = buildApi(
    {
      pool,
      settlements,
      gate,
      publicUrl: config.api.publicUrl,
      auth: new Authenticator(pool, operatorKey),
      metrics: createMetrics(pool),
      toolCalls: new ToolCalls({
        pool,
        gate,
        notifications,
        localAnswers,
        gateWaitMs,
        settings: {
          approval_recheck_s: config.approvalRecheckS,
          approval_recheck_max_s: config.approvalRecheckMaxS,
          unavailable_window_s: config.unavailableWindowS,
        },
      }),
      mcpApprovalWaitMs: config.mcpApprovalWaitS * 1000,
      http: config.http,
      modelProxy: config.modelProxy,
      notifications,
      slots: new CallerSlots({ ...callerLimits, model: config.modelProxy.concurrentPerRun }),
      sealer: CredentialSealer.fromBase64(config.sealingKey),
      resolve: brokerResolver(config.brokerDnsServers),
      codec: new EncryptionCodec(config.payloadKeys),
      codecCorsOrigins: config.codecCorsOrigins,
      web: config.web,
      oidc: config.web.oidc && new OidcRelyingParty(config.web.oidc, config.api.publicUrl),
      simulation: { deadlineMs: config.simulation.deadlineMs, threads },
    },
    { logger },
  );
  app.addHook('onClose', async () => {
    await threads.close();
    await gate.close();
    await notifications.close();
    await workerPool?.end();
    await settlements.end();
    await pool.end();
  });
  return app;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const config = configOrExit();
  boundHeapGrowth(config.heapGrowthPercent);
  const { operatorKey } = config.api;
  if (!operatorKey) {
    process.stderr.write('GATE_OPERATOR_KEY must be set to a secret of at least 16 characters\n');
    process.exit(1);
  }
  // Before the pools and the Temporal client are made: they are traced only if it started.
  const tracing = startTracingOrExit('fluidbox-gate-api');
  const app = createApi(config, operatorKey, { logger: { level: config.api.logLevel } });
  app.addHook('onClose', async () => {
    await tracing?.shutdown();
  });
  await app.listen({ host: config.api.host, port: config.api.port });
  const shutdown = () => {
    void app.close().then(() => process.exit(0));
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}
