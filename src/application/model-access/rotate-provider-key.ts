import type { ApiKeyCredential, CredentialSealer } from '../../broker/sealing.js';
import {
  findModelProvider,
  replaceModelProviderCredential,
  type ModelProviderRow,
} from '../../store/model-providers.js';
import type { Pool } from '../../store/pool.js';

type KeyRotation =
  | { kind: 'rotated'; provider: ModelProviderRow }
  | { kind: 'unknown' }
  | { kind: 'removed'; provider: ModelProviderRow };

/**
 * Seals a new key under the provider's own id in place of the old one. Every request admitted
 * from then unseals the new key; a removed provider takes none.
 */
export async function rotateProviderKey(
  deps: { pool: Pool; sealer: CredentialSealer },
  id: string,
  credential: ApiKeyCredential,
): Promise<KeyRotation> {
  const sealed = deps.sealer.seal(id, credential).toBytes();
  const provider = await replaceModelProviderCredential(deps.pool, id, sealed);
  if (provider) return { kind: 'rotated', provider };
  const current = await findModelProvider(deps.pool, id);
  return current ? { kind: 'removed', provider: current } : { kind: 'unknown' };
}
