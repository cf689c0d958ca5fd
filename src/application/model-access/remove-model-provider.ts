import {
  removeModelProvider as markRemoved,
  type ModelProviderRow,
} from '../../store/model-providers.js';
import type { Pool } from '../../store/pool.js';

/**
 * Removes a provider: runs frozen with it keep it named and reach no model any more. Removing
 * it again changes nothing; undefined for a provider that never was.
 */
export function removeModelProvider(pool: Pool, id: string): Promise<ModelProviderRow | undefined> {
  return markRemoved(pool, id);
}
