import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { nanosPerUsd } from '../../domain/budget/pricing.js';
import {
  admitProxiedRequest,
  checkCountTokensRequest,
} from '../../application/model-access/admit-proxied-request.js';
import {
  AlreadySettledError,
  settleProxiedRequest,
  type ExchangeEnd,
} from '../../application/model-access/settle-proxied-request.js';
import type { ReservationRow } from '../../store/budget.js';
import { upstreamHeaders, upstreamUrl, type UpstreamCall } from '../../broker/model-upstream.js';
import { findModelProvider, type ModelProviderRow } from '../../store/model-providers.js';
import { findRunBySessionTokenHash, type FrozenRun } from '../../store/runs.js';
import type { ApiContext } from '../context.js';
import {
  AnthropicError,
  anthropicErrorOf,
  invalidRequest,
  unauthenticated,
} from '../anthropic-errors.js';
import { ClientLink, relayExchange } from '../model-relay.js';
import { hashToken, tokenKind } from '../../application/tokens.js';
import { modelRequestBodyLimit } from './model-requests.js';
import { RateWindow } from '../rate-window.js';
import { callerKey } from '../caller-slots.js';
import { Problem } from '../problem.js';
import { anyObject, type MediaAnswer } from '../route-schemas.js';

/**
 * The Anthropic Messages API, through the gate: `ANTHROPIC_BASE_URL=<gate>/anthropic` and the
 * run's session token as the API key. The token is checked before the body is read; the body
 * is kept as bytes, parsed once for admission, and forwarded unchanged with the provider's key,
 * the client's headers and query by an allow list.
 */

interface ModelAccess {
  run: FrozenRun;
  provider: ModelProviderRow;
}

const accessByRequest = new WeakMap<FastifyRequest, ModelAccess>();

/** `x-api-key`, as the SDKs send an API key, or `Authorization: Bearer`, as they send a token. */
function presentedToken(request: FastifyRequest): string | undefined {
  const apiKey = request.headers['x-api-key'];
  const bearer = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1];
  const key = typeof apiKey === 'string' ? apiKey : undefined;
  if (key !== undefined && bearer !== undefined && key !== bearer) return undefined;
  return key ?? bearer;
}

async function authenticate(ctx: ApiContext, request: FastifyRequest): Promise<ModelAccess> {
  const token = presentedToken(request);
  if (token === undefined || token.length > 512 || tokenKind(token) !== 'session') {
    throw unauthenticated("a run's session token is required as x-api-key (or a Bearer token)");
  }
  const run = await findRunBySessionTokenHash(ctx.pool, hashToken(token));
  if (!run) throw unauthenticated('the session token is not valid');
  const provider = run.model_provider_id
    ? await findModelProvider(ctx.pool, run.model_provider_id)
    : undefined;
  if (!provider) {
    throw new AnthropicError(
      403,
      'permission_error',
      `run ${run.id} has no model provider: create the run with model_provider to reach a model through the gate`,
    );
  }
  if (provider.removed_at) {
    throw new AnthropicError(
      403,
      'permission_error',
      `the model provider of run ${run.id} (${provider.name}) was removed by the operator: this run reaches no model any more`,
    );
  }
  return { run, provider };
}

/**
 * One run's model requests in flight are capped (see caller-slots.ts), taken before the body is
 * read and given back when the answer closes; past the cap, Anthropic's own rate-limit error.
 */
function holdModelSlot(ctx: ApiContext, reply: FastifyReply, run: FrozenRun): void {
  try {
    ctx.slots.holdFor(reply.raw, 'model', callerKey({ kind: 'runner', run }));
  } catch (err) {
    if (err instanceof Problem && err.status === 429)
      throw new AnthropicError(429, 'rate_limit_error', err.message, 1);
    throw err;
  }
}

function accessOf(request: FastifyRequest): ModelAccess {
  const access = accessByRequest.get(request);
  if (!access) throw unauthenticated("a run's session token is required");
  return access;
}

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
  const { key } = ctx.sealer.unsealApiKey(
    provider.id,
    ctx.sealer.fromStored(provider.sealed_credential),
  );
  return {
    url: upstreamUrl(provider.base_url, path, forwardedSearch(request.url)),
    headers: upstreamHeaders(request.headers, key, body.length),
    body,
    idleTimeoutMs: ctx.modelProxy.idleTimeoutMs,
    totalTimeoutMs: ctx.modelProxy.totalTimeoutMs,
  };
}

/** Of the query, only what the SDKs send (`?beta=true`) goes upstream. */
function forwardedSearch(url: string): string {
  const query = new URLSearchParams(url.includes('?') ? url.slice(url.indexOf('?') + 1) : '');
  return query.get('beta') === 'true' ? '?beta=true' : '';
}

/**
 * Settles once, a few tries while PostgreSQL is away; a hold left unsettled is charged its
 * booking by the expiry sweep. Finding the reservation settled already is an error to see.
 */
async function settle(
  ctx: ApiContext,
  request: FastifyRequest,
  workspaceId: string,
  reservation: ReservationRow,
  end: ExchangeEnd,
): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      const { costNanos } = await settleProxiedRequest(ctx.pool, workspaceId, reservation, end);
      if (costNanos) {
        ctx.metrics.modelSpend.inc(
          { provider_kind: reservation.provider_kind ?? 'anthropic', via: 'proxy' },
          costNanos / nanosPerUsd,
        );
      }
      return;
    } catch (err) {
      // After a failed try, an earlier commit whose answer was lost looks the same: not an error.
      if (err instanceof AlreadySettledError && attempt > 1) return;
      if (err instanceof AlreadySettledError || attempt >= 3) {
        const reason = err instanceof AlreadySettledError ? err.found : 'not_written';
        ctx.metrics.modelSettlementFailures.inc({ reason });
        request.log.error(
          { err, request_id: reservation.request_id, reason },
          reason === 'not_written'
            ? 'a proxied model request could not be settled: the sweep charges its booking'
            : `a proxied model request's settlement found its reservation ${reason}`,
        );
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 250 * attempt));
    }
  }
}

async function messages(ctx: ApiContext, request: FastifyRequest, reply: FastifyReply) {
  const { run, provider } = accessOf(request);
  const body = bodyOf(request);
  // Made before booking: nothing that can fail stands between a hold and its exchange.
  const call = upstreamCall(ctx, request, provider, '/v1/messages', body);
  const admission = await admitProxiedRequest(ctx.pool, run, provider, body);
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
  const end = await relayExchange(call, client, { meter: true });
  await settle(ctx, request, run.workspace_id, admission.reservation, end);
  client.finish();
}

/**
 * Counting tokens books nothing, but is read like a message request and limited per run: it
 * spends the provider's rate limits, and a URL source in it is fetched like any other.
 */
async function countTokens(
  ctx: ApiContext,
  limits: RateWindow,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  const { run, provider } = accessOf(request);
  // Before the body is read: a refused body costs a parse, so it counts too.
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
  await relayExchange(call, client, { meter: false });
  client.finish();
}

const tags = ['model access'];

/** The provider's answer as it came (relayed, never re-serialised): Anthropic's API documents it. */
const providerAnswer = (description: string): MediaAnswer => ({
  description,
  content: {
    'application/json': { schema: anyObject },
    'text/event-stream': { schema: z.string() },
  },
});

export function anthropicProxyRoutes(app: FastifyInstance, ctx: ApiContext) {
  void app.register(
    (scope, _options, registered) => {
      // Bytes, not JSON: the body is parsed once, by admission, and forwarded as it came.
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => {
        done(null, body);
      });
      scope.setErrorHandler((err, request, reply) => {
        const error = anthropicErrorOf(err);
        if (error.status >= 500) request.log.error({ err }, 'model request failed');
        return reply.code(error.status).headers(error.headers()).send(error.body());
      });
      scope.setNotFoundHandler((request, reply) => {
        const error = new AnthropicError(
          404,
          'not_found_error',
          `the gate has no ${request.method} ${request.url.split('?')[0] ?? ''}`,
        );
        return reply.code(404).headers(error.headers()).send(error.body());
      });
      // Before the body is read: an unauthenticated caller's 16 MiB is never parsed.
      scope.addHook('onRequest', async (request, reply) => {
        const access = await authenticate(ctx, request);
        accessByRequest.set(request, access);
        holdModelSlot(ctx, reply, access.run);
      });
      const options = {
        bodyLimit: modelRequestBodyLimit,
        config: { caller: 'model_key' },
      } as const;
      const countLimits = new RateWindow(ctx.modelProxy.countTokensPerMinute);
      scope.post(
        '/v1/messages',
        {
          ...options,
          schema: {
            operationId: 'createMessage',
            summary: 'The Anthropic Messages API, metered against the run budget',
            tags,
            response: { 200: providerAnswer('the provider answer, or its event stream') },
          },
        },
        (request, reply) => messages(ctx, request, reply),
      );
      scope.post(
        '/v1/messages/count_tokens',
        {
          ...options,
          schema: {
            operationId: 'countMessageTokens',
            summary: 'The Anthropic token count, through the gate',
            tags,
            response: { 200: providerAnswer('the count') },
          },
        },
        (request, reply) => countTokens(ctx, countLimits, request, reply),
      );
      registered();
    },
    { prefix: '/anthropic' },
  );
}
