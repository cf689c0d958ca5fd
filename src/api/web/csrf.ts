import { createHmac, randomBytes } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { Problem } from '../problem.js';
import { sameSecret } from '../../application/tokens.js';

/**
 * A signed-in form's CSRF token: an HMAC keyed by the session id. Only the holder of the
 * session cookie can compute it, it needs no server secret and no column, and a copy of the
 * database (which holds only the session id's hash) cannot produce it.
 */
export function csrfTokenFor(sessionId: string): string {
  return createHmac('sha256', sessionId)
    .update('fluidbox-gate web form csrf v1')
    .digest('base64url');
}

/**
 * Before sign-in there is no session to derive from, so the login form double-submits a random
 * value: one copy in a SameSite=Strict cookie, one in the form. Another site can set neither.
 */
export const loginCsrfCookie = 'fg_login_csrf';
export const newLoginCsrf = () => randomBytes(32).toString('base64url');

function csrfMatches(presented: unknown, expected: string | undefined): boolean {
  if (typeof presented !== 'string' || presented === '' || !expected) return false;
  return sameSecret(presented, expected);
}

/** A form post must carry the right token; otherwise 403 and nothing changes. */
export function requireCsrf(
  presented: unknown,
  expected: string | undefined,
): asserts expected is string {
  if (!csrfMatches(presented, expected)) {
    throw new Problem(
      403,
      'this form is missing its security token or it has expired; reload the page and try again',
    );
  }
}

function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

/**
 * Refuses a form post another site made the browser send. A concrete `Origin` must be this
 * server, as reached now or as approvers are told to reach it (`publicUrl`). Our pages send
 * `Referrer-Policy: no-referrer`, under which browsers post our own forms with `Origin: null`,
 * so `null` counts as withheld; the Fetch Metadata header `Sec-Fetch-Site`, which browsers send
 * regardless, must then not say the post came from elsewhere. The CSRF token is checked as well.
 */
export function requireSameOrigin(request: FastifyRequest, publicUrl: string): void {
  const origin = request.headers.origin;
  const site = request.headers['sec-fetch-site'];
  let foreign = site !== undefined && site !== 'same-origin' && site !== 'none';
  if (origin !== undefined && origin !== 'null') {
    const presented = originOf(origin);
    const ours = [originOf(`${request.protocol}://${request.host}`), originOf(publicUrl)];
    foreign ||= presented === undefined || !ours.includes(presented);
  }
  if (foreign) throw new Problem(403, 'this form was posted from another site');
}
