import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export type TokenKind = 'session' | 'user';
const prefixes: Record<TokenKind, string> = { session: 'fgs_', user: 'fgu_' };

/** 256 random bits; shown once, stored only as its SHA-256. */
export function newToken(kind: TokenKind): string {
  return prefixes[kind] + randomBytes(32).toString('base64url');
}

export function tokenKind(token: string): TokenKind | undefined {
  if (token.startsWith(prefixes.session)) return 'session';
  if (token.startsWith(prefixes.user)) return 'user';
  return undefined;
}

export function hashToken(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

export function sameSecret(presented: string, expected: string): boolean {
  return timingSafeEqual(hashToken(presented), hashToken(expected));
}
