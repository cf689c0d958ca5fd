import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * The value of one cookie the browser sent, or undefined. Only plain token values are accepted,
 * of up to `maxLength` characters (a sealed value is longer than a random one).
 */
export function readCookie(
  request: FastifyRequest,
  name: string,
  maxLength = 200,
): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    const value = part.slice(eq + 1).trim();
    // Our cookie values are base64url; anything else was not set by us.
    return value.length <= maxLength && /^[A-Za-z0-9_-]+$/.test(value) ? value : undefined;
  }
  return undefined;
}

interface CookieOptions {
  /** Seconds until the browser drops it; 0 deletes it now. */
  maxAgeS: number;
  secure: boolean;
  /**
   * Strict unless the cookie must come back on a navigation from another site: the identity
   * provider's redirect to our callback.
   */
  sameSite?: 'Strict' | 'Lax';
}

/**
 * Sets a cookie the page's script cannot read (HttpOnly) and that no other site can make the
 * browser send (SameSite=Strict by default). Secure only over https, or the browser would drop
 * it on http.
 */
export function setCookie(
  reply: FastifyReply,
  name: string,
  value: string,
  { maxAgeS, secure, sameSite = 'Strict' }: CookieOptions,
): void {
  const attributes = [
    `${name}=${value}`,
    'Path=/',
    `Max-Age=${Math.max(0, Math.floor(maxAgeS))}`,
    'HttpOnly',
    `SameSite=${sameSite}`,
    ...(secure ? ['Secure'] : []),
  ];
  // Fastify appends to an existing set-cookie header rather than replacing it.
  void reply.header('set-cookie', attributes.join('; '));
}

export function clearCookie(reply: FastifyReply, name: string, secure: boolean): void {
  setCookie(reply, name, '', { maxAgeS: 0, secure });
}
