import { GateError } from '../errors.js';
/**
 * The keys that encrypt what Temporal stores, as the operator writes them in a setting: read here,
 * with the settings, and used by the payload codec (src/temporal/payload-codec.ts).
 */
const keyIdPattern = /^[A-Za-z0-9_.-]{1,64}$/;

export interface PayloadKey {
  id: string;
  key: Buffer;
}

export class PayloadKeyError extends GateError {
  override name = 'PayloadKeyError';
  readonly code = 'invalid_payload_keys';
}

/**
 * `id:base64,id:base64`, the current key first. Each key is 32 random bytes
 * (`openssl rand -base64 32`); an id is a short plain name such as `2026-11`.
 */
export function parsePayloadKeys(text: string): PayloadKey[] {
  const keys = text.split(',').map((entry, index) => {
    const [id = '', material = ''] = entry.trim().split(':');
    if (!keyIdPattern.test(id)) {
      throw new PayloadKeyError(`key ${index + 1} must be id:base64 with a plain id`);
    }
    const key = Buffer.from(material, 'base64');
    if (key.length !== 32 || key.toString('base64') !== material) {
      throw new PayloadKeyError(`key ${id} must be 32 bytes in base64`);
    }
    return { id, key };
  });
  if (new Set(keys.map((k) => k.id)).size !== keys.length) {
    throw new PayloadKeyError('key ids must be distinct');
  }
  return keys;
}
