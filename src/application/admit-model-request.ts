import { inputTokenBound } from '../domain/budget/input-token-bound.js';
import { type ModelInput } from '../domain/budget/model-input-schema.js';
import { thinkingDigests } from '../domain/budget/thinking-origins.js';
import { digestOf } from '../domain/ledger/digest.js';
import { formatUsd } from '../domain/budget/pricing.js';
import type { ReservationRow } from '../store/budget.js';
import { findModelProvider } from '../store/model-providers.js';
import { bookModelRequest } from './model-access/book-model-request.js';
import { findThinkingOrigins } from '../store/model-thinking-blocks.js';
import type { Pool } from '../store/pool.js';
import type { FrozenRun } from '../store/runs.js';
import {
  BudgetExhaustedError,
  ConflictError,
  InvalidInputError,
  type FieldError,
} from '../domain/errors.js';

interface ModelRequest {
  request_id: string;
  model: string;
  max_output_tokens: number;
  input: ModelInput;
}

/** A request bigger than the whole allowance could never be admitted: that is bad input. */
function refuseWhatCanNeverFit(maxTokens: number, maxOutputTokens: number, inputBound: number) {
  const errors: FieldError[] = [];
  if (inputBound > maxTokens) {
    errors.push({
      path: 'input',
      message: `may take up to ${inputBound} input tokens, more than the run's whole allowance of ${maxTokens}`,
    });
  }
  if (maxOutputTokens > maxTokens) {
    errors.push({
      path: 'max_output_tokens',
      message: `is more than the run's whole allowance of ${maxTokens}`,
    });
  }
  if (errors.length === 0 && inputBound + maxOutputTokens > maxTokens) {
    const message = `with an input bound of ${inputBound} tokens, max_output_tokens ${maxOutputTokens} books more than the run's whole allowance of ${maxTokens}`;
    errors.push({ path: 'max_output_tokens', message }, { path: 'input', message });
  }
  if (errors.length > 0) {
    throw new InvalidInputError(
      `this model request can never fit the run's allowance of ${maxTokens} tokens`,
      errors,
    );
  }
}

/** Built from the stored row alone, so a retry gets the same answer. */
function budgetExhausted(reservation: ReservationRow, message: string): BudgetExhaustedError {
  return new BudgetExhaustedError(`model request ${reservation.request_id}: ${message}`, {
    request_id: reservation.request_id,
    booked_tokens: reservation.booked_tokens,
    ...(reservation.booked_nanos !== null && { booked_usd: formatUsd(reservation.booked_nanos) }),
    level: reservation.refused_by ?? 'run, life',
  });
}

/**
 * Books a model request against the run's allowance: max_output_tokens plus an upper bound on
 * the input tokens computed from the request itself. The same request id answers the first
 * answer again (a refusal too); with another body it is a conflict.
 */
export async function admitModelRequest(
  pool: Pool,
  run: FrozenRun,
  request: ModelRequest,
): Promise<ReservationRow> {
  // Thinking blocks the proxy saw produced are bounded here too.
  const digests = thinkingDigests(request.input);
  const origins = await findThinkingOrigins(pool, run.workspace_id, digests);
  const inputBoundTokens = inputTokenBound(request.input, origins);
  refuseWhatCanNeverFit(run.max_tokens, request.max_output_tokens, inputBoundTokens);
  const requestDigest = digestOf({
    model: request.model,
    max_output_tokens: request.max_output_tokens,
    input: request.input,
  });
  // The runner's request is in the Messages shape: priced as the run's provider, else Anthropic.
  const provider = run.model_provider_id
    ? await findModelProvider(pool, run.model_provider_id)
    : undefined;
  const booked = await bookModelRequest(pool, {
    run,
    providerKind: provider?.kind ?? 'anthropic',
    providerId: provider?.id ?? null,
    model: request.model,
    requestId: request.request_id,
    requestDigest,
    via: 'runner',
    worstCase: { inputTokens: inputBoundTokens, outputTokens: request.max_output_tokens },
  });
  if (booked.kind === 'unpriced')
    throw new InvalidInputError(booked.message, [{ path: 'model', message: booked.message }]);
  const { reservation } = booked;
  if (reservation.request_digest !== requestDigest) {
    throw new ConflictError(
      `model request ${request.request_id} was already made with a different body`,
    );
  }
  if (booked.kind === 'exhausted') throw budgetExhausted(reservation, booked.message);
  return reservation;
}
