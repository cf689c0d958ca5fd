/**
 * What Temporal stores of a gate workflow (arguments, results, approvers' reasons) is ciphertext:
 * every payload is encrypted with AES-256-GCM before it leaves the client or the worker. The key
 * id travels in the payload's metadata, so keys rotate by id: new payloads use the current key,
 * older ones open with whichever configured key sealed them.
 */
import { createCipheriv, createDecipheriv, randomFillSync } from 'node:crypto';
import type { Payload, PayloadCodec } from '@temporalio/common';
import proto from '@temporalio/proto';
import { PayloadKeyError, type PayloadKey } from '../domain/secrets/payload-keys.js';
import { GateError } from '../domain/errors.js';

const { Payload: PayloadMessage } = proto.temporal.api.common.v1;

const encryptedEncoding = 'binary/encrypted';
export const keyIdMetadata = 'encryption-key-id';

const ivBytes = 12;
const tagBytes = 16;
export class PayloadDecryptionError extends GateError {
  override name = 'PayloadDecryptionError';
  readonly code = 'payload_undecryptable';
}

/**
 * Nonces drawn from the system's random source 512 at a time: one call into it per 512 payloads
 * rather than one each (a call costs tens of microseconds on a busy machine, and a decision seals
 * several payloads). Each is as random as one drawn alone, and is used once.
 */
const ivsPerDraw = 512;
const ivPool = Buffer.alloc(ivBytes * ivsPerDraw);
let ivsLeft = 0;

function nextIv(): Buffer {
  if (ivsLeft === 0) {
    randomFillSync(ivPool);
    ivsLeft = ivsPerDraw;
  }
  ivsLeft -= 1;
  // A copy: the pool is drawn again once spent, and a nonce handed out must never change.
  return Buffer.from(ivPool.subarray(ivsLeft * ivBytes, (ivsLeft + 1) * ivBytes));
}

const utf8 = (text: string) => new TextEncoder().encode(text);
const text = (bytes: Uint8Array | null | undefined) =>
  bytes ? Buffer.from(bytes).toString('utf8') : undefined;

export class EncryptionCodec implements PayloadCodec {
  private readonly current: PayloadKey;
  private readonly currentAad: Buffer;
  private readonly byId: Map<string, Buffer>;

  constructor(keys: readonly PayloadKey[]) {
    const [current] = keys;
    if (!current) throw new PayloadKeyError('at least one payload key is required');
    this.current = current;
    this.currentAad = Buffer.from(current.id);
    this.byId = new Map(keys.map((k) => [k.id, k.key]));
  }

  encode(payloads: Payload[]): Promise<Payload[]> {
    return new Promise((resolve) => {
      resolve(payloads.map((payload) => this.encrypt(payload)));
    });
  }

  /** Payloads written before encryption (or by a plain client) pass through as they are. */
  decode(payloads: Payload[]): Promise<Payload[]> {
    // A payload that does not open rejects the promise (the executor's throw), never escapes it.
    return new Promise((resolve) => {
      resolve(
        payloads.map((payload) =>
          text(payload.metadata?.encoding) === encryptedEncoding ? this.decrypt(payload) : payload,
        ),
      );
    });
  }

  private encrypt(payload: Payload): Payload {
    const iv = nextIv();
    const cipher = createCipheriv('aes-256-gcm', this.current.key, iv);
    cipher.setAAD(this.currentAad);
    const plain = PayloadMessage.encode(payload).finish();
    const sealed = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
    return {
      metadata: { encoding: utf8(encryptedEncoding), [keyIdMetadata]: utf8(this.current.id) },
      data: sealed,
    };
  }

  private decrypt(payload: Payload): Payload {
    const id = text(payload.metadata?.[keyIdMetadata]) ?? '';
    const key = this.byId.get(id);
    if (!key) throw new PayloadDecryptionError(`no payload key with id "${id}" is configured`);
    const sealed = Buffer.from(payload.data ?? new Uint8Array());
    if (sealed.length < ivBytes + tagBytes) {
      throw new PayloadDecryptionError('an encrypted payload is truncated');
    }
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, ivBytes));
      decipher.setAAD(Buffer.from(id));
      decipher.setAuthTag(sealed.subarray(sealed.length - tagBytes));
      const plain = Buffer.concat([
        decipher.update(sealed.subarray(ivBytes, sealed.length - tagBytes)),
        decipher.final(),
      ]);
      return PayloadMessage.decode(plain);
    } catch {
      throw new PayloadDecryptionError(`an encrypted payload does not open with key "${id}"`);
    }
  }
}
