import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  admitProxiedRequest,
  checkCountTokensRequest,
} from '../../application/model-access/admit-proxied-request.js';
import type { UpstreamCall } from '../../broker/model-upstream.js';
import type { ModelProviderRow } from '../../store/model-providers.js';
import type { ApiContext } from '../context.js';
import {
  AnthropicError,
  anthropicErrorOf,
  invalidRequest,
  unauthenticated,
} from '../anthropic-errors.js';
import { ClientLink, relayExchange } from '../model-relay.js';
import { parseMessagesRequest } from '../../domain/budget/messages-request.js';
import { proxiedModelRoute } from './proxied-model-route.js';
import { RateWindow } from '../rate-window.js';
import { modelEndpointScope, type ModelAccess } from '../model-callers.js';
import { anthropicWire } from '../anthropic-wire.js';
import { providerCall, settleExchange } from '../model-exchange.js';

/**
 * The Anthropic Messages API, through the gate: `ANTHROPIC_BASE_URL=<gate>/anthropic` and the
 * run's session token as the API key. The token is checked before the body is read; the body
 * is kept as bytes, parsed once for admission, and forwarded unchanged with the provider's key,
 * the client's headers and query by an allow list.
 */

function bodyOf(request: FastifyRequest): Buffer {
  if (!Buffer.isBuffer(request.body) || request.body.length === 0)
    throw invalidRequest('the body must be a JSON Messages request');
  return request.body;
}

function upstreamCall(
  ctx: ApiContext,
  request: FastifyRequest,
  provider: ModelProviderRow,
  path: string,
  body: Buffer,
): UpstreamCall {
  return providerCall(ctx, request, provider, `${path}${forwardedSearch(request.url)}`, body);
}

/** Of the query, only what the SDKs send (`?beta=true`) goes upstream. */
function forwardedSearch(url: string): string {
  const query = new URLSearchParams(url.includes('?') ? url.slice(url.indexOf('?') + 1) : '');
  return query.get('beta') === 'true' ? '?beta=true' : '';
}

async function messages(
  ctx: ApiContext,
  accessOf: Promise<ModelAccess>,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  const body = bodyOf(request);
  // Parsed while the caller's read may still be on its way (see modelEndpointScope).
  const parsed = parseMessagesRequest(body, 'messages');
  const { run, provider, priceEpoch } = await accessOf;
  // Made before booking: nothing that can fail stands between a hold and its exchange.
  const call = upstreamCall(ctx, request, provider, '/v1/messages', body);
  const admission = await admitProxiedRequest(ctx.pool, run, provider, body, priceEpoch, parsed);
  if (
    admission.kind === 'invalid' ||
    admission.kind === 'never_fits' ||
    admission.kind === 'unpriced'
  )
    throw invalidRequest(admission.message);
  if (admission.kind === 'exhausted')
    throw new AnthropicError(402, 'billing_error', admission.message);
  void reply.hijack();
  const client = new ClientLink(reply.raw, ctx.modelProxy.writeDeadlineMs);
  const end = await relayExchange(call, client, { meter: true, wire: anthropicWire });
  await settleExchange(ctx, request, run.workspace_id, admission.reservation, end);
  client.finish();
}

/**
 * Counting tokens books nothing, but is read like a message request and limited per run: it
 * spends the provider's rate limits, and a URL source in it is fetched like any other.
 */
async function countTokens(
  ctx: ApiContext,
  accessOf: Promise<ModelAccess>,
  limits: RateWindow,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  const { run, provider } = await accessOf;
  // Before the body is parsed: a refused body costs a parse, so it counts too.
  const taken = limits.take(run.id);
  if (!taken.ok) {
    throw new AnthropicError(
      429,
      'rate_limit_error',
      `this run may count tokens ${ctx.modelProxy.countTokensPerMinute} times a minute`,
      taken.retryAfterS,
    );
  }
  const body = bodyOf(request);
  const checked = await checkCountTokensRequest(ctx.pool, run, provider, body);
  if (checked.kind !== 'ok') throw invalidRequest(checked.message);
  const call = upstreamCall(ctx, request, provider, '/v1/messages/count_tokens', body);
  void reply.hijack();
  const client = new ClientLink(reply.raw, ctx.modelProxy.writeDeadlineMs);
  await relayExchange(call, client, { meter: false, wire: anthropicWire });
  client.finish();
}

export function anthropicProxyRoutes(app: FastifyInstance, ctx: ApiContext) {
  void app.register(
    (scope, _options, registered) => {
      const accessOf = modelEndpointScope(scope, ctx, {
        kind: 'anthropic',
        errorOf: anthropicErrorOf,
        unauthenticated,
        forbidden: (message) => new AnthropicError(403, 'permission_error', message),
        notFound: (what) => new AnthropicError(404, 'not_found_error', `the gate has no ${what}`),
        limited: (message) => new AnthropicError(429, 'rate_limit_error', message, 1),
      });
      const countLimits = new RateWindow(ctx.modelProxy.countTokensPerMinute);
      scope.post(
        '/v1/messages',
        proxiedModelRoute(
          'createMessage',
          'The Anthropic Messages API, metered against the run budget',
          'the provider answer, or its event stream',
        ),
        (request, reply) => messages(ctx, accessOf(request), request, reply),
      );
      scope.post(
        '/v1/messages/count_tokens',
        proxiedModelRoute(
          'countMessageTokens',
          'The Anthropic token count, through the gate',
          'the count',
        ),
        (request, reply) => countTokens(ctx, accessOf(request), countLimits, request, reply),
      );
      registered();
    },
    { prefix: '/anthropic' },
  );
}
