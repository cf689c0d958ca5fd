import { costOf } from '../domain/budget/pricing.js';
import { reconcileModelRequest, type ReservationRow, type UsageRow } from '../store/budget.js';
import type { Pool } from '../store/pool.js';
import type { FrozenRun } from '../store/runs.js';
import { ConflictError, NotFoundError } from '../domain/errors.js';

/**
 * Reconciles a model request the runner booked with its real usage, once: the hold is released
 * and the usage counted. Reporting the same figures again changes nothing; other figures are a
 * conflict, and so is a report on a request the gate's model endpoint booked (it settles those).
 */
export async function reportModelUsage(
  pool: Pool,
  run: FrozenRun,
  report: { request_id: string; input_tokens: number; output_tokens: number },
): Promise<{ reservation: ReservationRow; usage: UsageRow }> {
  const result = await reconcileModelRequest(pool, {
    by: 'runner',
    sessionId: run.session_id,
    requestId: report.request_id,
    inputTokens: report.input_tokens,
    outputTokens: report.output_tokens,
    // A runner reports no cache figures: its input is priced as uncached input.
    costNanos: (booked) =>
      booked.price &&
      costOf(booked.price, {
        input: report.input_tokens,
        cache_write: 0,
        cache_read: 0,
        output: report.output_tokens,
      }),
  });
  if (result.kind === 'unknown') throw new NotFoundError(`model request ${report.request_id}`);
  if (result.kind === 'not_maker') {
    throw new ConflictError(
      `model request ${report.request_id} was booked by the gate's model endpoint, which settles it from what it relayed; a runner reports only the requests it booked with POST …/model-requests`,
    );
  }
  if (result.kind === 'refused') {
    throw new ConflictError(
      `model request ${report.request_id} was refused admission; there is no reservation to reconcile`,
    );
  }
  const { reservation, usage } = result;
  if (usage.input_tokens !== report.input_tokens || usage.output_tokens !== report.output_tokens) {
    throw new ConflictError(
      `the usage of model request ${report.request_id} was already reported with other figures`,
    );
  }
  return { reservation, usage };
}
