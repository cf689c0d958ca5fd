import {
  formatUsd,
  priceLookupNames,
  resolvePrice,
  worstCaseCost,
  type ModelPrice,
  type ProviderKind,
} from '../../domain/budget/pricing.js';
import {
  admitModelRequest,
  type ReservationMaker,
  type ReservationRow,
} from '../../store/budget.js';
import { findModelPrices, findPriceFallback } from '../../store/model-prices.js';
import type { Pool } from '../../store/pool.js';
import type { FrozenRun } from '../../store/runs.js';

/**
 * The one admission every model door uses (the runner's explicit API, the Anthropic endpoint,
 * the OpenAI-compatible one): price the model, book its worst case at every level the run falls
 * under, in one transaction. What the request is, and its worst-case usage, each door reads
 * from its own body.
 */
interface ModelBooking {
  run: FrozenRun;
  providerKind: ProviderKind;
  /** The run's model provider, whose fallback price (if the operator named one) applies. */
  providerId: string | null;
  model: string;
  requestId: string;
  requestDigest: string;
  via: ReservationMaker;
  worstCase: { inputTokens: number; outputTokens: number };
  /**
   * The prices' epoch as the request's first statement read it (`ModelCaller`): prices kept from
   * a read at the same epoch are the table's, and are not read again. Unknown: read them.
   */
  priceEpoch?: number | undefined;
}

type BookingOutcome =
  | { kind: 'admitted'; reservation: ReservationRow; created: boolean }
  /** The model has no price and the provider names no fallback: nothing was booked. */
  | { kind: 'unpriced'; message: string }
  /** A level cannot take the booking; `level` names it as `team "payments", month`. */
  | { kind: 'exhausted'; reservation: ReservationRow; level: string; message: string };

/** The price a model is booked at, or undefined when it has none and no fallback is named. */
async function priceOfModel(
  pool: Pool,
  providerKind: ProviderKind,
  providerId: string | null,
  model: string,
): Promise<ModelPrice | undefined> {
  // Two reads at once: one round trip's wait before the first byte instead of two.
  const [own, fallback] = await Promise.all([
    findModelPrices(pool, providerKind, priceLookupNames(providerKind, model)),
    providerId ? findPriceFallback(pool, providerId) : undefined,
  ]);
  return resolvePrice(providerKind, model, (_kind, name) => own.get(name), fallback)?.price;
}

/**
 * Prices this process read, by provider kind, provider and model, each with the epoch it was
 * read at. A price read after the epoch was read is at least as new as that epoch, so an entry
 * whose epoch is the table's holds the table's price; one whose epoch moved is read again.
 */
const keptPrices = new Map<string, { epoch: number; price: ModelPrice | undefined }>();
const keptPricesAtMost = 10_000;

async function keptPriceOfModel(
  pool: Pool,
  booking: Pick<ModelBooking, 'providerKind' | 'providerId' | 'model' | 'priceEpoch'>,
): Promise<ModelPrice | undefined> {
  const { providerKind, providerId, model, priceEpoch: epoch } = booking;
  if (epoch === undefined) return priceOfModel(pool, providerKind, providerId, model);
  const key = JSON.stringify([providerKind, providerId, model]);
  const kept = keptPrices.get(key);
  if (kept?.epoch === epoch) return kept.price;
  const price = await priceOfModel(pool, providerKind, providerId, model);
  if (keptPrices.size >= keptPricesAtMost) keptPrices.clear();
  keptPrices.set(key, { epoch, price });
  return price;
}

function unpricedMessage(providerKind: ProviderKind, model: string): string {
  return `model ${JSON.stringify(model)} has no price in the gate's price table for ${providerKind}, and its provider names no fallback price: the operator sets one with PUT /v1/model-prices/${providerKind}/{model} or PUT /v1/model-providers/{id}/fallback-price`;
}

export async function bookModelRequest(pool: Pool, booking: ModelBooking): Promise<BookingOutcome> {
  const price = await keptPriceOfModel(pool, booking);
  if (!price)
    return { kind: 'unpriced', message: unpricedMessage(booking.providerKind, booking.model) };
  const bookedNanos = worstCaseCost(price, {
    inputBoundTokens: booking.worstCase.inputTokens,
    maxOutputTokens: booking.worstCase.outputTokens,
  });
  const { reservation, created } = await admitModelRequest(pool, {
    runId: booking.run.id,
    sessionId: booking.run.session_id,
    workspaceId: booking.run.workspace_id,
    memberId: booking.run.invoked_by,
    requestId: booking.requestId,
    requestDigest: booking.requestDigest,
    model: booking.model,
    maxOutputTokens: booking.worstCase.outputTokens,
    inputBoundTokens: booking.worstCase.inputTokens,
    via: booking.via,
    providerKind: booking.providerKind,
    price,
    bookedNanos,
  });
  if (reservation.status !== 'refused') return { kind: 'admitted', reservation, created };
  const level = reservation.refused_by ?? 'run, life';
  return {
    kind: 'exhausted',
    reservation,
    level,
    message: `budget: ${level} is exhausted: this request books ${reservation.booked_tokens} tokens and ${formatBooked(reservation)} at worst, more than that level has left`,
  };
}

function formatBooked(reservation: ReservationRow): string {
  return `$${formatUsd(reservation.booked_nanos ?? 0)}`;
}
