import { ApplicationFailure, Context } from '@temporalio/activity';
import { unavailableType } from '../domain/gate/decisions.js';
import type { DenySource } from '../domain/gate/vocabulary.js';
import { isUnavailableError } from '../store/pool.js';

/**
 * PostgreSQL away or too slow, as the workflow recognises it: retried (within the stages' window
 * or the recorder's bound), and a deny it ends in names the gate's unavailability. Undefined for
 * any other error.
 */
export function unavailableFailure(
  err: unknown,
  stage?: DenySource,
): ApplicationFailure | undefined {
  if (!isUnavailableError(err)) return undefined;
  const cause = err instanceof Error ? err.message : String(err);
  return ApplicationFailure.retryable(cause, unavailableType, ...(stage ? [stage] : []));
}

/**
 * Fails a retry that starts past its activity's schedule-to-close, for good and as the gate's
 * unavailability. The worker's own retries of a local activity do not always stop there: a
 * deadline that passes while an attempt backs off is dropped, and the retries would go on.
 */
export function refusePastItsWindow(): void {
  const { attempt, scheduledTimestampMs, scheduleToCloseTimeoutMs } = Context.current().info;
  if (attempt === 1 || scheduleToCloseTimeoutMs <= 0) return;
  if (Date.now() < scheduledTimestampMs + scheduleToCloseTimeoutMs) return;
  throw ApplicationFailure.nonRetryable(
    `the state of record could not be reached within the ${scheduleToCloseTimeoutMs / 1000} s window`,
    unavailableType,
  );
}

/** An activity whose failures to reach PostgreSQL reach the workflow named as such. */
export function namingUnavailability<A extends unknown[], R>(
  activity: (...args: A) => Promise<R>,
): (...args: A) => Promise<R> {
  return async (...args) => {
    try {
      return await activity(...args);
    } catch (err) {
      throw unavailableFailure(err) ?? err;
    }
  };
}

/**
 * An activity of the state of record, as the workflow calls it: bounded by its window, and its
 * failures to reach PostgreSQL named as such.
 */
export function reachingTheRecord<A extends unknown[], R>(
  activity: (...args: A) => Promise<R>,
): (...args: A) => Promise<R> {
  const named = namingUnavailability(activity);
  return (...args) => {
    refusePastItsWindow();
    return named(...args);
  };
}
