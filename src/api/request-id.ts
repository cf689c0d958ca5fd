import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export const requestIdHeader = 'x-request-id';

/** What a caller's request id may be; anything else is replaced, never logged as it came. */
const acceptable = /^[A-Za-z0-9._:-]{1,128}$/;

/** The caller's `x-request-id` when it is a plain token, else a new one. */
export function requestIdOf(request: IncomingMessage): string {
  const given = request.headers[requestIdHeader];
  return typeof given === 'string' && acceptable.test(given) ? given : randomUUID();
}
