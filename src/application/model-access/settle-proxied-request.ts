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
import { settlementCost } from '../../domain/budget/pricing.js';
import { recordThinkingBlocks } from '../../store/model-thinking-blocks.js';
import type { Pool } from '../../store/pool.js';
import { GateError } from '../../domain/errors.js';

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
export class AlreadySettledError extends GateError {
  override name = 'AlreadySettledError';
  readonly code = 'already_settled';
  constructor(
    readonly requestId: string,
    readonly found: 'already_settled' | 'unknown' | 'refused' | 'not_maker',
  ) {
    super(`model request ${requestId} was found ${found}: its usage was not counted again`);
  }
}

/**
 * The cost of an exchange: the price it was booked at applied to the usage the upstream
 * reported (cache writes and reads at their own prices, the long-context tier by the whole
 * input); a part never reported counts at its worst case, a request never billed costs nothing.
 */
function exchangeCost(reservation: ReservationRow, end: ExchangeEnd): number | null {
  if (!reservation.price) return null;
  if (end.billing === 'not_billed') return 0;
  const usage = end.report.usage;
  return settlementCost(
    reservation.price,
    {
      usage: {
        input: usage.input_tokens,
        cache_write: usage.cache_creation_input_tokens,
        cache_read: usage.cache_read_input_tokens,
        output: usage.output_tokens,
      },
      inputReported: end.report.inputReported,
      outputReported: end.report.outputReported,
    },
    {
      inputBoundTokens: reservation.input_bound_tokens,
      maxOutputTokens: reservation.max_output_tokens,
    },
  );
}

/**
 * Reconciles a proxied request once, from what the upstream reported (see usageToReconcile),
 * with its cost (see exchangeCost), and records the thinking blocks it produced with the output
 * they were counted at. Every model door settles through here with its upstream's usage
 * mapped onto a UsageReport. Only the
 * endpoint settles its reservations, once each: finding one settled is an error.
 */
export async function settleProxiedRequest(
  pool: Pool,
  workspaceId: string,
  reservation: ReservationRow,
  end: ExchangeEnd,
): Promise<{ costNanos: number | null }> {
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
    costNanos: (booked) => exchangeCost(booked, end),
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
  return { costNanos: result.usage.cost_nanos };
}
