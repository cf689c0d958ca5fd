import { createHash, randomUUID } from 'node:crypto';
import {
  messagesInputBound,
  parseMessagesRequest,
  type MessagesRequest,
} from '../../domain/budget/messages-request.js';
import { thinkingDigests } from '../../domain/budget/input-token-bound.js';
import { admitModelRequest, type ReservationRow } from '../../store/budget.js';
import { findThinkingOrigins } from '../../store/model-thinking-blocks.js';
import type { Pool } from '../../store/pool.js';
import type { FrozenRun } from '../../store/runs.js';

export type ProxiedAdmission =
  | { kind: 'admitted'; reservation: ReservationRow; request: MessagesRequest }
  | { kind: 'invalid'; message: string }
  | { kind: 'never_fits'; message: string }
  | { kind: 'exhausted'; message: string };

/**
 * Admission of a request the gate will forward: parsed once from the bytes that will go
 * upstream, bounded, and booked (max_tokens plus the input bound) under a request id of the
 * gate's own, so the runner cannot choose or replay one.
 */
export async function admitProxiedRequest(
  pool: Pool,
  run: FrozenRun,
  raw: Buffer,
): Promise<ProxiedAdmission> {
  const parsed = parseMessagesRequest(raw);
  if (!parsed.ok) return { kind: 'invalid', message: parsed.message };
  const { request } = parsed;
  const origins = await findThinkingOrigins(pool, run.workspace_id, thinkingDigests(request.input));
  const bound = messagesInputBound(request, origins);
  const booked = bound.tokens + request.maxTokens;
  const why =
    bound.unbounded.length > 0
      ? ` (${bound.unbounded.join('; ')}: a part without a bound of its own counts the largest context window)`
      : '';
  if (booked > run.max_tokens) {
    return {
      kind: 'never_fits',
      message: `max_tokens ${request.maxTokens} plus an input bound of ${bound.tokens} tokens${why} is more than the run's whole allowance of ${run.max_tokens}`,
    };
  }
  const { reservation } = await admitModelRequest(pool, {
    runId: run.id,
    sessionId: run.session_id,
    requestId: `proxy-${randomUUID()}`,
    requestDigest: `sha256:${createHash('sha256').update(raw).digest('hex')}`,
    model: request.model,
    maxOutputTokens: request.maxTokens,
    inputBoundTokens: bound.tokens,
    via: 'proxy',
  });
  if (reservation.status === 'refused') {
    return {
      kind: 'exhausted',
      message: `the run's token budget is exhausted: this request books ${booked} tokens (max_tokens ${request.maxTokens} plus an input bound of ${bound.tokens}${why}), more than the run has left`,
    };
  }
  return { kind: 'admitted', reservation, request };
}
