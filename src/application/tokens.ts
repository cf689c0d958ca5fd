import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * A run's session token, an operator-minted user token, a person's own API token, or a
 * workspace's SCIM token (its identity provider's, for provisioning only).
 */
type TokenKind = 'session' | 'user' | 'personal' | 'scim';
const prefixes: Record<TokenKind, string> = {
  session: 'fgs_',
  user: 'fgu_',
  personal: 'fgp_',
  scim: 'fgi_',
};

/** 256 random bits; shown once, stored only as its SHA-256. */
export function newToken(kind: TokenKind): string {
  return prefixes[kind] + randomBytes(32).toString('base64url');
}

export function tokenKind(token: string): TokenKind | undefined {
  if (token.startsWith(prefixes.session)) return 'session';
  if (token.startsWith(prefixes.user)) return 'user';
  if (token.startsWith(prefixes.personal)) return 'personal';
  if (token.startsWith(prefixes.scim)) return 'scim';
  return undefined;
}

export function hashToken(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

export function sameSecret(presented: string, expected: string): boolean {
  return timingSafeEqual(hashToken(presented), hashToken(expected));
}
