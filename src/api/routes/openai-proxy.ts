import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { admitOpenAIRequest } from '../../application/model-access/admit-openai-request.js';
import { parseOpenAIRequest, type OpenAIEndpoint } from '../../domain/budget/openai-request.js';
import type { ApiContext } from '../context.js';
import { ClientLink, relayExchange } from '../model-relay.js';
import { modelEndpointScope, type ModelAccess } from '../model-callers.js';
import { providerCall, settleExchange } from '../model-exchange.js';
import {
  OpenAIError,
  openaiErrorOf,
  openaiInvalidRequest,
  openaiUnauthenticated,
} from '../openai-errors.js';
import { openaiWires } from '../openai-wire.js';
import { proxiedModelRoute } from './proxied-model-route.js';

/**
 * OpenAI's Chat Completions and Responses APIs, through the gate: the `openai` client with
 * `baseURL: <gate>/openai/v1` and the run's session token as its API key. The token is checked
 * before the body is read; the body is parsed once, bounded, given an explicit output limit (and,
 * streamed on Chat Completions, a usage report), booked, and forwarded with the provider's key.
 */

/** Each endpoint's route: the provider's own path under `/openai`, and its place in the document. */
const routes: Record<OpenAIEndpoint, { path: string; operationId: string; summary: string }> = {
  chat_completions: {
    path: '/v1/chat/completions',
    operationId: 'createChatCompletion',
    summary: 'OpenAI Chat Completions, metered against the run budget',
  },
  responses: {
    path: '/v1/responses',
    operationId: 'createResponse',
    summary: 'OpenAI Responses, metered against the run budget',
  },
};
const openaiEndpoints = Object.keys(routes) as OpenAIEndpoint[];

async function relay(
  ctx: ApiContext,
  accessOf: Promise<ModelAccess>,
  endpoint: OpenAIEndpoint,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  const body = request.body;
  if (!Buffer.isBuffer(body) || body.length === 0)
    throw openaiInvalidRequest('the body must be a JSON request');
  // Parsed while the caller's read may still be on its way (see modelEndpointScope).
  const parsed = parseOpenAIRequest(body, endpoint);
  const { run, provider, priceEpoch } = await accessOf;
  const admission = await admitOpenAIRequest(
    ctx.pool,
    run,
    provider,
    body,
    endpoint,
    priceEpoch,
    parsed,
  );
  if (admission.kind === 'invalid' || admission.kind === 'never_fits')
    throw openaiInvalidRequest(admission.message, admission.param ?? null);
  if (admission.kind === 'unpriced') throw openaiInvalidRequest(admission.message, 'model');
  if (admission.kind === 'exhausted')
    throw new OpenAIError(402, 'insufficient_quota', admission.message, 'budget_exhausted');
  // Unsealing cannot fail between the hold and its exchange: the key was sealed by this gate.
  const call = providerCall(ctx, request, provider, routes[endpoint].path, admission.forwarded);
  void reply.hijack();
  const client = new ClientLink(reply.raw, ctx.modelProxy.writeDeadlineMs);
  const end = await relayExchange(call, client, { meter: true, wire: openaiWires[endpoint] });
  await settleExchange(ctx, request, run.workspace_id, admission.reservation, end);
  client.finish();
}

export function openaiProxyRoutes(app: FastifyInstance, ctx: ApiContext) {
  void app.register(
    (scope, _options, registered) => {
      const accessOf = modelEndpointScope(scope, ctx, {
        kind: 'openai',
        errorOf: openaiErrorOf,
        unauthenticated: openaiUnauthenticated,
        forbidden: (message) => new OpenAIError(403, 'permission_error', message, 'model_provider'),
        notFound: (what) =>
          new OpenAIError(
            404,
            'invalid_request_error',
            `the gate has no ${what}: it serves /openai/v1/chat/completions and /openai/v1/responses`,
            'unknown_url',
          ),
        limited: (message) =>
          new OpenAIError(429, 'rate_limit_error', message, 'rate_limit_exceeded', null, 1),
      });
      for (const endpoint of openaiEndpoints) {
        const { path, operationId, summary } = routes[endpoint];
        scope.post(
          path,
          proxiedModelRoute(operationId, summary, 'the provider answer, or its event stream'),
          (request, reply) => relay(ctx, accessOf(request), endpoint, request, reply),
        );
      }
      registered();
    },
    { prefix: '/openai' },
  );
}
