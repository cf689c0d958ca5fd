import type { FastifyRequest } from 'fastify';
import { nanosPerUsd } from '../domain/budget/pricing.js';
import {
  AlreadySettledError,
  settleProxiedRequest,
  type ExchangeEnd,
} from '../application/model-access/settle-proxied-request.js';
import { upstreamHeaders, upstreamUrl, type UpstreamCall } from '../broker/model-upstream.js';
import type { ReservationRow } from '../store/budget.js';
import type { ModelProviderRow } from '../store/model-providers.js';
import type { ApiContext } from './context.js';

/**
 * The two ends of a proxied model request that every model endpoint shares: the call to the
 * provider (its sealed key unsealed for this one request) and the settlement once it is over.
 */

/** The call to the provider at `pathAndSearch`, with its own key and the allowed headers. */
export function providerCall(
  ctx: ApiContext,
  request: FastifyRequest,
  provider: ModelProviderRow,
  pathAndSearch: string,
  body: Buffer,
): UpstreamCall {
  const { key } = ctx.sealer.unsealApiKey(
    provider.id,
    ctx.sealer.fromStored(provider.sealed_credential),
  );
  const [path = '', search = ''] = pathAndSearch.split('?');
  return {
    url: upstreamUrl(provider.base_url, path, search ? `?${search}` : ''),
    headers: upstreamHeaders(provider.kind, request.headers, key, body.length),
    body,
    idleTimeoutMs: ctx.modelProxy.idleTimeoutMs,
    totalTimeoutMs: ctx.modelProxy.totalTimeoutMs,
  };
}

/**
 * How long a settlement is tried before the expiry sweep is left to charge the booking (the
 * worst case, though the usage is known here): long enough for the levels' rows to be free of a burst
 * of admissions queued on them. Beside another suite, 200 requests of one workspace under four
 * levels kept some settlements from those rows for over 30 s. The settlement has connections of
 * its own (`ApiContext.settlements`); the hold stands meanwhile, and a client still reading
 * waits for its end. A reservation outlives this (`reservationSettleMarginS` in config.ts).
 */
const settleForMs = 90_000;
const settleBackoffMs = (attempt: number) => Math.min(250 * attempt, 2_000);

/**
 * Settles once, tried again while PostgreSQL or its pool does not answer (`settleForMs`); a
 * hold left unsettled is charged its booking by the expiry sweep. Finding the reservation
 * settled already is an error to see.
 */
export async function settleExchange(
  ctx: Pick<ApiContext, 'settlements' | 'metrics'>,
  request: Pick<FastifyRequest, 'log'>,
  workspaceId: string,
  reservation: ReservationRow,
  end: ExchangeEnd,
): Promise<void> {
  const started = Date.now();
  for (let attempt = 1; ; attempt += 1) {
    try {
      const { costNanos } = await settleProxiedRequest(
        ctx.settlements,
        workspaceId,
        reservation,
        end,
      );
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
      const outOfTime = Date.now() - started + settleBackoffMs(attempt) > settleForMs;
      if (err instanceof AlreadySettledError || outOfTime) {
        const reason = err instanceof AlreadySettledError ? err.found : 'not_written';
        ctx.metrics.modelSettlementFailures.inc({ reason });
        request.log.error(
          { err, request_id: reservation.request_id, reason, attempts: attempt },
          reason === 'not_written'
            ? 'a proxied model request could not be settled: the sweep charges its booking'
            : `a proxied model request's settlement found its reservation ${reason}`,
        );
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, settleBackoffMs(attempt)));
    }
  }
}
