import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { admitOpenAIRequest } from '../../application/model-access/admit-openai-request.js';
import type { OpenAIEndpoint } from '../../domain/budget/openai-request.js';
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
import { anyObject, type MediaAnswer } from '../route-schemas.js';
import { modelRequestBodyLimit } from './model-requests.js';

/**
 * OpenAI's Chat Completions and Responses APIs, through the gate: the `openai` client with
 * `baseURL: <gate>/openai/v1` and the run's session token as its API key. The token is checked
 * before the body is read; the body is parsed once, bounded, given an explicit output limit (and,
 * streamed on Chat Completions, a usage report), booked, and forwarded with the provider's key.
 */

const paths: Record<OpenAIEndpoint, string> = {
  chat_completions: '/v1/chat/completions',
  responses: '/v1/responses',
};

async function relay(
  ctx: ApiContext,
  { run, provider }: ModelAccess,
  endpoint: OpenAIEndpoint,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  if (!Buffer.isBuffer(request.body) || request.body.length === 0)
    throw openaiInvalidRequest('the body must be a JSON request');
  const admission = await admitOpenAIRequest(ctx.pool, run, provider, request.body, endpoint);
  if (admission.kind === 'invalid' || admission.kind === 'never_fits')
    throw openaiInvalidRequest(admission.message, admission.param ?? null);
  if (admission.kind === 'unpriced') throw openaiInvalidRequest(admission.message, 'model');
  if (admission.kind === 'exhausted')
    throw new OpenAIError(402, 'insufficient_quota', admission.message, 'budget_exhausted');
  // Unsealing cannot fail between the hold and its exchange: the key was sealed by this gate.
  const call = providerCall(ctx, request, provider, paths[endpoint], admission.forwarded);
  void reply.hijack();
  const client = new ClientLink(reply.raw, ctx.modelProxy.writeDeadlineMs);
  const end = await relayExchange(call, client, { meter: true, wire: openaiWires[endpoint] });
  await settleExchange(ctx, request, run.workspace_id, admission.reservation, end);
  client.finish();
}

const tags = ['model access'];

/** The provider's answer as it came (relayed, never re-serialised): OpenAI's API documents it. */
const providerAnswer = (description: string): MediaAnswer => ({
  description,
  content: {
    'application/json': { schema: anyObject },
    'text/event-stream': { schema: z.string() },
  },
});

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
      const options = {
        bodyLimit: modelRequestBodyLimit,
        config: { caller: 'model_key' },
      } as const;
      scope.post(
        '/v1/chat/completions',
        {
          ...options,
          schema: {
            operationId: 'createChatCompletion',
            summary: 'OpenAI Chat Completions, metered against the run budget',
            tags,
            response: { 200: providerAnswer('the provider answer, or its event stream') },
          },
        },
        (request, reply) => relay(ctx, accessOf(request), 'chat_completions', request, reply),
      );
      scope.post(
        '/v1/responses',
        {
          ...options,
          schema: {
            operationId: 'createResponse',
            summary: 'OpenAI Responses, metered against the run budget',
            tags,
            response: { 200: providerAnswer('the provider answer, or its event stream') },
          },
        },
        (request, reply) => relay(ctx, accessOf(request), 'responses', request, reply),
      );
      registered();
    },
    { prefix: '/openai' },
  );
}
