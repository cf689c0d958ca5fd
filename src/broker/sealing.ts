import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import type { OAuthAttempt, OAuthCustody } from './oauth-custody.js';
import { GateError } from '../domain/errors.js';

export interface BearerCredential {
  type: 'bearer';
  token: string;
  /** The operator said the server, named by a host, is inside the network (see address-reach). */
  private_network?: true;
}

/** A model provider's API key. */
export interface ApiKeyCredential {
  type: 'api_key';
  key: string;
}

/** A webhook endpoint's signing secret (`whsec_…`). */
interface WebhookSecret {
  type: 'webhook_secret';
  secret: string;
}

/**
 * A person's sign-in under way at the identity provider: what its callback must match, kept
 * sealed in that person's browser (nothing is written for a sign-in that never comes back).
 */
export interface OidcPending {
  type: 'oidc_pending';
  state: string;
  nonce: string;
  code_verifier: string;
  next: string | null;
  /** Epoch ms after which the callback is refused. */
  expires_at: number;
}

type Credential =
  BearerCredential | ApiKeyCredential | WebhookSecret | OAuthCustody | OAuthAttempt | OidcPending;

const version = 1;
const ivBytes = 12;
const tagBytes = 16;
const sealerOnly = Symbol('sealer');

/**
 * A credential sealed at rest (AES-256-GCM, bound to the id of the row that holds it). Only the sealer makes
 * one, and only the sealer opens one; it prints as a placeholder, so a log line never holds it.
 */
export class SealedCredential {
  readonly #bytes: Buffer;

  constructor(key: symbol, bytes: Buffer) {
    if (key !== sealerOnly) throw new TypeError('only the sealer makes SealedCredential values');
    this.#bytes = bytes;
  }

  /** The stored form, for the connections table. */
  toBytes(): Buffer {
    return Buffer.from(this.#bytes);
  }

  toJSON(): string {
    return '[sealed credential]';
  }

  toString(): string {
    return '[sealed credential]';
  }
}

export class SealingError extends GateError {
  override name = 'SealingError';
  readonly code = 'sealing_failed';
}

export class CredentialSealer {
  readonly #key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== 32)
      throw new SealingError('the sealing key must be 32 bytes (base64 in GATE_SEALING_KEY)');
    this.#key = Buffer.from(key);
  }

  static fromBase64(text: string | undefined): CredentialSealer {
    if (!text) throw new SealingError('GATE_SEALING_KEY is not set: 32 random bytes, base64');
    return new CredentialSealer(Buffer.from(text, 'base64'));
  }

  /** The owner's id is authenticated data: a sealed credential cannot be moved to another row. */
  seal(ownerId: string, credential: Credential): SealedCredential {
    const iv = randomBytes(ivBytes);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    cipher.setAAD(Buffer.from(ownerId, 'utf8'));
    const body = Buffer.concat([cipher.update(JSON.stringify(credential), 'utf8'), cipher.final()]);
    return new SealedCredential(
      sealerOnly,
      Buffer.concat([Buffer.from([version]), iv, cipher.getAuthTag(), body]),
    );
  }

  /**
   * A keyed digest of `data` for one purpose, under a key derived from the sealing key (HKDF): a
   * value only this deployment can compute, which nobody needs to store.
   */
  mac(purpose: string, data: string): Buffer {
    const key = hkdfSync('sha256', this.#key, Buffer.alloc(0), `fluidbox-gate ${purpose}`, 32);
    return createHmac('sha256', Buffer.from(key)).update(data, 'utf8').digest();
  }

  /** Reads a stored credential back into its sealed form (no decryption). */
  fromStored(bytes: Buffer): SealedCredential {
    return new SealedCredential(sealerOnly, Buffer.from(bytes));
  }

  /** A connection's bearer token. */
  unseal(connectionId: string, sealed: SealedCredential): BearerCredential {
    const credential = this.#open(connectionId, sealed);
    if (credential.type !== 'bearer') throw new SealingError('not a bearer credential');
    return credential;
  }

  /** An OAuth connection's client and tokens. */
  unsealOAuth(connectionId: string, sealed: SealedCredential): OAuthCustody {
    const credential = this.#open(connectionId, sealed);
    if (credential.type !== 'oauth') throw new SealingError('not an OAuth credential');
    return credential;
  }

  /** A started authorization's PKCE verifier and client, bound to the hash of its state. */
  unsealOAuthAttempt(stateHash: string, sealed: SealedCredential): OAuthAttempt {
    const credential = this.#open(stateHash, sealed);
    if (credential.type !== 'oauth_attempt') throw new SealingError('not an OAuth authorization');
    return credential;
  }

  /** A sign-in under way, as its browser's cookie carried it back. */
  unsealOidcPending(purpose: string, sealed: SealedCredential): OidcPending {
    const credential = this.#open(purpose, sealed);
    if (credential.type !== 'oidc_pending') throw new SealingError('not a sign-in under way');
    return credential;
  }

  /** A model provider's API key. */
  unsealApiKey(providerId: string, sealed: SealedCredential): ApiKeyCredential {
    const credential = this.#open(providerId, sealed);
    if (credential.type !== 'api_key') throw new SealingError('not an API key');
    return credential;
  }

  /** A webhook endpoint's signing secret. */
  unsealWebhookSecret(endpointId: string, sealed: SealedCredential): WebhookSecret {
    const credential = this.#open(endpointId, sealed);
    if (credential.type !== 'webhook_secret') throw new SealingError('not a webhook secret');
    return credential;
  }

  #open(ownerId: string, sealed: SealedCredential): Credential {
    const bytes = sealed.toBytes();
    if (bytes[0] !== version || bytes.length < 1 + ivBytes + tagBytes)
      throw new SealingError('not a sealed credential');
    const iv = bytes.subarray(1, 1 + ivBytes);
    const tag = bytes.subarray(1 + ivBytes, 1 + ivBytes + tagBytes);
    const decipher = createDecipheriv('aes-256-gcm', this.#key, iv);
    decipher.setAAD(Buffer.from(ownerId, 'utf8'));
    decipher.setAuthTag(tag);
    try {
      const text = Buffer.concat([
        decipher.update(bytes.subarray(1 + ivBytes + tagBytes)),
        decipher.final(),
      ]).toString('utf8');
      return JSON.parse(text) as Credential;
    } catch {
      throw new SealingError('the credential does not open with this key for this row');
    }
  }
}
