import Fastify, { LogController, type FastifyInstance, type FastifyRequest } from 'fastify';
import { checkCallers } from './callers.js';
import { callerKey } from './caller-slots.js';
import type { ApiContext } from './context.js';
import { problemFor } from './error-mapping.js';
import { Problem, sendProblem } from './problem.js';
import { requestIdHeader, requestIdOf } from './request-id.js';
import { traceRequests } from './request-tracing.js';
import { documentRoutes } from './openapi/openapi-document.js';
import { routeSchemasOnZod } from './route-schemas.js';
import { approvalRoutes } from './routes/approvals.js';
import { grantRoutes } from './routes/grants.js';
import { connectionRoutes } from './routes/connections.js';
import { capabilityBundleRoutes } from './routes/capability-bundles.js';
import { codecRoutes } from './routes/codec.js';
import { eventRoutes } from './routes/events.js';
import { anthropicProxyRoutes } from './routes/anthropic-proxy.js';
import { modelPriceRoutes } from './routes/model-prices.js';
import { spendBudgetRoutes } from './routes/spend-budgets.js';
import { openaiProxyRoutes } from './routes/openai-proxy.js';
import { modelProviderRoutes } from './routes/model-providers.js';
import { modelRequestRoutes } from './routes/model-requests.js';
import { apiVersion, openApiRoutes } from './routes/openapi.js';
import { operationRoutes } from './routes/operations.js';
import { policyRoutes } from './routes/policies.js';
import { runRoutes } from './routes/runs.js';
import { sessionToolsetRoutes } from './routes/session-toolset.js';
import { toolCallRoutes } from './routes/tool-calls.js';
import { workspaceRoutes } from './routes/workspaces.js';
import { memberAccessRoutes } from './routes/member-access.js';
import { webhookRoutes } from './routes/webhooks.js';
import { mcpRoutes } from './mcp/mcp-routes.js';
import { scimRoutes } from './scim/scim-routes.js';
import { webRoutes } from './web/web-app.js';
import { authorizationServerRoutes } from './oauth/authorization-server-routes.js';
import { runProfileRoutes } from './routes/run-profiles.js';

const bodyLimitBytes = 1024 * 1024;
/** How often Node looks for requests past their headers or request bound: their slack. */
const boundsCheckMs = 1_000;

/** `false`, or pino options (a level, a destination stream): request logs never hold bodies. */
export type ApiLogger = boolean | { level: string; stream?: { write(line: string): void } };

/** A query parameter's name a log may show; any other is itself left out. */
const plainParameterName = /^[A-Za-z0-9_.[\]-]{1,40}$/;

/**
 * A URL as a log line shows it: the path, and the names of its query's parameters without their
 * values, which may be secrets (an authorization code, its state, a sign-in's next page).
 */
function loggedUrl(url: string): string {
  const at = url.indexOf('?');
  if (at < 0) return url;
  const names = url
    .slice(at + 1)
    .split('&')
    .filter((pair) => pair !== '')
    .map((pair) => pair.split('=', 1)[0] ?? '')
    .map((name) => (plainParameterName.test(name) ? name : '…'));
  return `${url.slice(0, at)}?${names.map((name) => `${name}=…`).join('&')}`;
}

/** A request as its log line shows it: its query's values are left out. */
const serializers = {
  req(request: FastifyRequest) {
    return {
      method: request.method,
      url: loggedUrl(request.url),
      host: request.host,
      remoteAddress: request.ip,
      remotePort: request.socket.remotePort,
    };
  },
};

export function buildApi(
  ctx: ApiContext,
  { logger = false }: { logger?: ApiLogger } = {},
): FastifyInstance {
  const bounds = ctx.http;
  const app = Fastify({
    logger: logger === false ? false : { ...(logger === true ? {} : logger), serializers },
    bodyLimit: bodyLimitBytes,
    // A request's headers, then all of it, must arrive in time (Node answers 408 and closes);
    // these bound only what arrives, never a response being written.
    http: {
      headersTimeout: bounds.headersTimeoutMs,
      requestTimeout: bounds.requestTimeoutMs,
      connectionsCheckingInterval: boundsCheckMs,
    },
    requestTimeout: bounds.requestTimeoutMs,
    connectionTimeout: bounds.idleTimeoutMs,
    keepAliveTimeout: bounds.keepAliveTimeoutMs,
    return503OnClosing: true,
    genReqId: requestIdOf,
    logController: new LogController({ requestIdLogLabel: 'request_id' }),
  });
  routeSchemasOnZod(app);
  documentRoutes(app, apiVersion);
  traceRequests(app);
  // Echoed on every answer, so a caller can quote it and an operator find its log lines.
  app.addHook('onRequest', async (request, reply) => {
    void reply.header(requestIdHeader, request.id);
  });

  // The idle bound is the client's: it covers a request arriving and an answer being read, not
  // the route's own work, which each route bounds (a wait ≤ 60 s, the gate's wait, a model
  // request's timeouts). Streams take the socket over and bound their writes themselves.
  app.addHook('preHandler', (request, _reply, done) => {
    request.raw.socket.setTimeout(0);
    done();
  });
  app.addHook('onSend', (request, _reply, payload, done) => {
    request.raw.socket.setTimeout(bounds.idleTimeoutMs);
    done(null, payload);
  });

  app.setErrorHandler((err, request, reply) => {
    const problem = problemFor(err);
    // What nobody foresaw is an error; a dependency away (503) or an upstream's fault, a warning.
    if (problem.status === 500) request.log.error({ err }, 'request failed');
    else if (problem.status > 500) request.log.warn({ err }, 'request failed');
    if (problem.status === 503) void reply.header('retry-after', '1');
    return sendProblem(reply, problem);
  });
  app.setNotFoundHandler((request, reply) =>
    sendProblem(
      reply,
      new Problem(404, `no route ${request.method} ${request.url.split('?')[0] ?? ''}`),
    ),
  );
  // Credentials before the body: the body of a caller the API does not know is never read.
  checkCallers(app, ctx.auth);
  // A write takes one of its caller's slots before its body is read, until it is answered: past
  // the cap a 429, so one credential's writes cannot hold the pool (or the gate) for all others.
  app.addHook('onRequest', async (request, reply) => {
    const kind = request.routeOptions.config.holds;
    if (kind) ctx.slots.holdFor(reply.raw, kind, callerKey(await ctx.auth.principal(request)));
  });
  app.addHook('onResponse', async (request, reply) => {
    ctx.metrics.httpDuration.observe(
      {
        method: request.method,
        route: request.routeOptions.url ?? 'unknown',
        status: String(reply.statusCode),
      },
      reply.elapsedTime / 1000,
    );
    // 402 means one thing in this API: a model request refused for budget.
    if (reply.statusCode === 402) ctx.metrics.budgetRefusals.inc({ where: 'model_request' });
  });

  // Registered once the document's generator is, so that it sees every route.
  void app.register((api, _options, done) => {
    operationRoutes(api, ctx);
    openApiRoutes(api);
    workspaceRoutes(api, ctx);
    memberAccessRoutes(api, ctx);
    capabilityBundleRoutes(api, ctx);
    policyRoutes(api, ctx);
    runRoutes(api, ctx);
    toolCallRoutes(api, ctx);
    sessionToolsetRoutes(api, ctx);
    modelRequestRoutes(api, ctx);
    modelProviderRoutes(api, ctx);
    modelPriceRoutes(api, ctx);
    spendBudgetRoutes(api, ctx);
    anthropicProxyRoutes(api, ctx);
    openaiProxyRoutes(api, ctx);
    eventRoutes(api, ctx);
    approvalRoutes(api, ctx);
    grantRoutes(api, ctx);
    webRoutes(api, ctx);
    connectionRoutes(api, ctx);
    codecRoutes(api, ctx);
    webhookRoutes(api, ctx);
    scimRoutes(api, ctx);
    mcpRoutes(api, ctx);
    runProfileRoutes(api, ctx);
    authorizationServerRoutes(api, ctx);
    done();
  });
  return app;
}
