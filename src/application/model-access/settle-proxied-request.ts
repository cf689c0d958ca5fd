import { usageToReconcile, type UsageReport } from '../../domain/budget/upstream-usage.js';
import {
  reconcileModelRequest,
  type MeteredFacts,
  type ReservationRow,
} from '../../store/budget.js';
import { recordThinkingBlocks } from '../../store/model-thinking-blocks.js';
import type { Pool } from '../../store/pool.js';

export interface ExchangeEnd {
  /** The upstream answered with a 2xx status. */
  answered: boolean;
  report: UsageReport;
  facts: Omit<MeteredFacts, 'cache_creation_input_tokens' | 'cache_read_input_tokens'>;
}

/**
 * Reconciles a proxied request once, from what the upstream reported (see usageToReconcile),
 * and records the thinking blocks it produced with the output they were counted at.
 */
export async function settleProxiedRequest(
  pool: Pool,
  workspaceId: string,
  reservation: ReservationRow,
  end: ExchangeEnd,
): Promise<void> {
  const figures = usageToReconcile(end.report, end.answered, {
    inputBoundTokens: reservation.input_bound_tokens,
    maxOutputTokens: reservation.max_output_tokens,
  });
  await reconcileModelRequest(pool, {
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
}
