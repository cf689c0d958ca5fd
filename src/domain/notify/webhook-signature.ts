/**
 * Webhook signing as the Standard Webhooks convention has it: the secret is `whsec_` and base64
 * key bytes; the signature is `v1,` and the base64 HMAC-SHA256 of `<id>.<timestamp>.<body>`,
 * so a receiver checks the body, the delivery id and the time together.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const secretPrefix = 'whsec_';
export const secretPattern = /^whsec_[A-Za-z0-9+/]{32,88}={0,2}$/;

/** A new secret of 32 random bytes. */
export function newWebhookSecret(): string {
  return secretPrefix + randomBytes(32).toString('base64');
}

function keyOf(secret: string): Buffer {
  if (!secretPattern.test(secret)) throw new TypeError('a webhook secret is whsec_ and base64');
  return Buffer.from(secret.slice(secretPrefix.length), 'base64');
}

interface SignedHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/** The headers that go with `body`, sent as delivery `id` at `timestampS` (Unix seconds). */
export function signWebhook(
  secret: string,
  id: string,
  timestampS: number,
  body: string,
): SignedHeaders {
  const mac = createHmac('sha256', keyOf(secret))
    .update(`${id}.${timestampS}.${body}`)
    .digest('base64');
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampS),
    'webhook-signature': `v1,${mac}`,
  };
}

/** How far a receiver lets a timestamp stray from its clock: older deliveries are replays. */
export const toleranceS = 300;

/**
 * What a receiver does: recompute the signature and compare in constant time; refuse a
 * timestamp outside the tolerance. Any of several space-separated signatures may match.
 */
export function verifyWebhook(
  secret: string,
  headers: Partial<Record<keyof SignedHeaders, string>>,
  body: string,
  nowS = Math.floor(Date.now() / 1000),
): boolean {
  const id = headers['webhook-id'];
  const timestamp = Number(headers['webhook-timestamp']);
  if (!id || !Number.isInteger(timestamp) || Math.abs(nowS - timestamp) > toleranceS) return false;
  const expected = Buffer.from(signWebhook(secret, id, timestamp, body)['webhook-signature']);
  return (headers['webhook-signature'] ?? '').split(' ').some((candidate) => {
    const given = Buffer.from(candidate);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
