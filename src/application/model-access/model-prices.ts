import type { ModelPrice, ProviderKind } from '../../domain/budget/pricing.js';
import {
  deleteModelPrice,
  deletePriceFallback,
  putModelPrice,
  putPriceFallback,
  type ModelPriceRow,
} from '../../store/model-prices.js';
import { findModelProvider } from '../../store/model-providers.js';
import type { Pool } from '../../store/pool.js';

/** Sets the operator's price of a model, in place of the shipped default; says if one was set. */
export function setModelPrice(
  pool: Pool,
  kind: ProviderKind,
  model: string,
  price: ModelPrice,
): Promise<{ row: ModelPriceRow; replaced: boolean }> {
  return putModelPrice(pool, kind, model, price);
}

/** Removes the operator's price of a model; false when there was none. */
export function removeModelPrice(pool: Pool, kind: ProviderKind, model: string): Promise<boolean> {
  return deleteModelPrice(pool, kind, model);
}

/** Charges a provider's models without a price at `price`; false for a provider that is unknown. */
export async function setFallbackPrice(
  pool: Pool,
  providerId: string,
  price: ModelPrice,
): Promise<boolean> {
  if (!(await findModelProvider(pool, providerId))) return false;
  await putPriceFallback(pool, providerId, price);
  return true;
}

/** Refuses a provider's models without a price again; false when no fallback was set. */
export function removeFallbackPrice(pool: Pool, providerId: string): Promise<boolean> {
  return deletePriceFallback(pool, providerId);
}
