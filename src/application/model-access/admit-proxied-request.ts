import { createHash, randomUUID } from 'node:crypto';
import {
  messagesInputBound,
  parseMessagesRequest,
  type MessagesEndpoint,
  type MessagesRequest,
  type MessagesRequestParse,
} from '../../domain/budget/messages-request.js';
import { type InputBound } from '../../domain/budget/input-token-bound.js';
import { thinkingDigests } from '../../domain/budget/thinking-origins.js';
import { urlSourcePaths } from '../../domain/budget/url-sources.js';
import type { ReservationRow } from '../../store/budget.js';
import { bookModelRequest } from './book-model-request.js';
import { findThinkingOrigins } from '../../store/model-thinking-blocks.js';
import type { ModelProviderRow } from '../../store/model-providers.js';
import type { Pool } from '../../store/pool.js';
import type { FrozenRun } from '../../store/runs.js';

type ProxiedAdmission =
  | { kind: 'admitted'; reservation: ReservationRow; request: MessagesRequest }
  | { kind: 'invalid'; message: string }
  | { kind: 'never_fits'; message: string }
  | { kind: 'unpriced'; message: string }
  | { kind: 'exhausted'; message: string; level: string };

type ReadRequest =
  | { kind: 'read'; request: MessagesRequest; bound: InputBound; why: string }
  | { kind: 'invalid'; message: string }
  | { kind: 'never_fits'; message: string };

/**
 * A request the gate would forward, read once from the bytes that go upstream: parsed (every
 * member carried into the bound), its URL sources refused unless the provider allows them, and
 * its input bounded. Nothing is booked.
 */
async function readProxiedRequest(
  pool: Pool,
  run: FrozenRun,
  provider: ModelProviderRow,
  parsed: MessagesRequestParse,
  endpoint: MessagesEndpoint,
): Promise<ReadRequest> {
  if (!parsed.ok) return { kind: 'invalid', message: parsed.message };
  const { request } = parsed;
  const [urlSource] = provider.allow_url_sources ? [] : urlSourcePaths(request.input);
  if (urlSource !== undefined) {
    return {
      kind: 'invalid',
      message: `${urlSource}: a URL source is refused: the provider would fetch whatever address the model wrote; send the content as base64 or text, or have the operator allow URL sources for this provider`,
    };
  }
  const origins = await findThinkingOrigins(pool, run.workspace_id, thinkingDigests(request.input));
  const bound = messagesInputBound(request, origins);
  const why =
    bound.unbounded.length > 0
      ? ` (${bound.unbounded.join('; ')}: a part without a bound of its own counts the largest context window)`
      : '';
  const booked = bound.tokens + request.maxTokens;
  if (booked > run.max_tokens) {
    const asked =
      endpoint === 'messages' ? `max_tokens ${request.maxTokens} plus an input` : 'an input';
    return {
      kind: 'never_fits',
      message: `${asked} bound of ${bound.tokens} tokens${why} is more than the run's whole allowance of ${run.max_tokens}`,
    };
  }
  return { kind: 'read', request, bound, why };
}

/**
 * Admission of a request the gate will forward: read (above) and booked (max_tokens plus the
 * input bound) under a request id of the gate's own, so the runner cannot choose, replay or
 * settle one. `parsed` is `raw` parsed, when the caller parsed it already.
 */
export async function admitProxiedRequest(
  pool: Pool,
  run: FrozenRun,
  provider: ModelProviderRow,
  raw: Buffer,
  priceEpoch?: number,
  parsed = parseMessagesRequest(raw, 'messages'),
): Promise<ProxiedAdmission> {
  const read = await readProxiedRequest(pool, run, provider, parsed, 'messages');
  if (read.kind !== 'read') return read;
  const { request, bound, why } = read;
  const booked = await bookProxiedRequest(pool, run, provider, {
    forwarded: raw,
    model: request.model,
    maxOutputTokens: request.maxTokens,
    inputBoundTokens: bound.tokens,
    asked: `max_tokens ${request.maxTokens} plus an input bound of ${bound.tokens}${why}`,
    priceEpoch,
  });
  return booked.kind === 'admitted' ? { ...booked, request } : booked;
}

/** What any model endpoint of the gate books for one request it will forward. */
interface ProxiedBooking {
  /** The bytes that go upstream: the request is known by their digest. */
  forwarded: Buffer;
  model: string;
  /** The most output the forwarded request lets the provider produce (and bill). */
  maxOutputTokens: number;
  /** A genuine upper bound on the input tokens of the forwarded request. */
  inputBoundTokens: number;
  /** How the booking was reached, for a refusal's message. */
  asked: string;
  /** The prices' epoch the caller's read found (`ModelCaller`), if any. */
  priceEpoch?: number | undefined;
}

type ProxiedBooked =
  | { kind: 'admitted'; reservation: ReservationRow }
  | { kind: 'unpriced'; message: string }
  | { kind: 'exhausted'; message: string; level: string };

/**
 * Books a request any model endpoint will forward, worst case first (its declared maximum output
 * plus its input bound, priced), at every budget level it falls under, under a request id of the
 * gate's own.
 */
export async function bookProxiedRequest(
  pool: Pool,
  run: FrozenRun,
  provider: ModelProviderRow,
  booking: ProxiedBooking,
): Promise<ProxiedBooked> {
  const booked = await bookModelRequest(pool, {
    run,
    providerKind: provider.kind,
    providerId: provider.id,
    model: booking.model,
    requestId: `proxy-${randomUUID()}`,
    requestDigest: `sha256:${createHash('sha256').update(booking.forwarded).digest('hex')}`,
    via: 'proxy',
    worstCase: { inputTokens: booking.inputBoundTokens, outputTokens: booking.maxOutputTokens },
    priceEpoch: booking.priceEpoch,
  });
  if (booked.kind === 'unpriced') return booked;
  if (booked.kind === 'exhausted') {
    return {
      kind: 'exhausted',
      level: booked.level,
      message: `${booked.message} (${booking.asked})`,
    };
  }
  return { kind: 'admitted', reservation: booked.reservation };
}

/**
 * A count_tokens request is read like a message request (the same members, the same URL rule,
 * an input that fits the run) and books nothing: it produces no output.
 */
export async function checkCountTokensRequest(
  pool: Pool,
  run: FrozenRun,
  provider: ModelProviderRow,
  raw: Buffer,
): Promise<{ kind: 'ok' } | { kind: 'invalid' | 'never_fits'; message: string }> {
  const parsed = parseMessagesRequest(raw, 'count_tokens');
  const read = await readProxiedRequest(pool, run, provider, parsed, 'count_tokens');
  return read.kind === 'read' ? { kind: 'ok' } : read;
}
