import { createHash, timingSafeEqual } from 'node:crypto';

/** RFC 7636's verifier: 43 to 128 unreserved characters. */
const codeVerifierPattern = /^[A-Za-z0-9._~-]{43,128}$/;
/** An S256 challenge: the base64url SHA-256 of a verifier, 43 characters. */
export const codeChallengePattern = /^[A-Za-z0-9_-]{43}$/;

/** The only method the gate takes: `plain` would hand the verifier to whoever sees the request. */
export const pkceMethod = 'S256';

export function s256Challenge(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/** Whether the verifier is the one the challenge was made from (S256). */
export function verifierMatches(verifier: string, challenge: string): boolean {
  if (!codeVerifierPattern.test(verifier)) return false;
  const made = Buffer.from(s256Challenge(verifier));
  const expected = Buffer.from(challenge);
  return made.length === expected.length && timingSafeEqual(made, expected);
}
