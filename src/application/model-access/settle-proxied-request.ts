import {
  usageToReconcile,
  type Billing,
  type UsageReport,
} from '../../domain/budget/upstream-usage.js';
import {
  reconcileModelRequest,
  type MeteredFacts,
  type ReservationRow,
} from '../../store/budget.js';
import { recordThinkingBlocks } from '../../store/model-thinking-blocks.js';
import type { Pool } from '../../store/pool.js';

export interface ExchangeEnd {
  /** Whether the provider may have billed the request (see Billing). */
  billing: Billing;
  report: UsageReport;
  facts: Omit<MeteredFacts, 'cache_creation_input_tokens' | 'cache_read_input_tokens'>;
}

/**
 * A settlement that found its reservation not the endpoint's to settle: settled already (or, as
 * never should be, unknown or another's). Never silent: logs and metrics.
 */
export class AlreadySettledError extends Error {
  override name = 'AlreadySettledError';
  constructor(
    readonly requestId: string,
    readonly found: 'already_settled' | 'unknown' | 'refused' | 'not_maker',
  ) {
    super(`model request ${requestId} was found ${found}: its usage was not counted again`);
  }
}

/**
 * Reconciles a proxied request once, from what the upstream reported (see usageToReconcile),
 * and records the thinking blocks it produced with the output they were counted at. Only the
 * endpoint settles its reservations, once each: finding one settled is an error.
 */
export async function settleProxiedRequest(
  pool: Pool,
  workspaceId: string,
  reservation: ReservationRow,
  end: ExchangeEnd,
): Promise<void> {
  const figures = usageToReconcile(end.report, end.billing, {
    inputBoundTokens: reservation.input_bound_tokens,
    maxOutputTokens: reservation.max_output_tokens,
  });
  const result = await reconcileModelRequest(pool, {
    by: 'proxy',
    sessionId: reservation.session_id,
    requestId: reservation.request_id,
    inputTokens: figures.input,
    outputTokens: figures.output,
    metered: {
      ...end.facts,
      cache_creation_input_tokens: end.report.usage.cache_creation_input_tokens,
      cache_read_input_tokens: end.report.usage.cache_read_input_tokens,
    },
    alsoWhenSettling: (tx, settled) =>
      recordThinkingBlocks(tx, {
        workspaceId,
        reservationId: settled.id,
        outputTokens: figures.output,
        digests: end.report.thinking,
      }),
  });
  if (result.kind !== 'reconciled')
    throw new AlreadySettledError(reservation.request_id, result.kind);
  if (!result.created) throw new AlreadySettledError(reservation.request_id, 'already_settled');
}
