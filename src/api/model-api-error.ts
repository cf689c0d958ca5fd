import type { FastifyError } from 'fastify';
import { isTransientConflict, isUnavailableError } from '../store/queries/database.js';

/**
 * What the gate's model endpoints share in their errors: a status, the API's error type, and
 * the same headers. Each API (Anthropic's, OpenAI's) writes the body in its own shape.
 */
export abstract class ModelApiError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
    /** Seconds after which the same request may succeed (a rate limit). */
    readonly retryAfterS?: number,
  ) {
    super(message);
  }

  /** The error as the API's own clients read it. */
  abstract body(): unknown;

  /**
   * The gate's refusals are final (retrying the same request cannot change the answer), but for
   * a rate limit, which says when to come back.
   */
  headers(): Record<string, string> {
    if (this.retryAfterS !== undefined)
      return { 'content-type': 'application/json', 'retry-after': String(this.retryAfterS) };
    return {
      'content-type': 'application/json',
      ...(this.status < 500 && { 'x-should-retry': 'false' }),
    };
  }
}

/** How one API words the faults no handler raised itself, each given the gate's message. */
export interface RequestFaultWording<E> {
  tooLarge(message: string): E;
  invalid(message: string): E;
  unavailable(message: string): E;
  internal(message: string): E;
}

/**
 * Any other error as one of the API's: client faults keep their 4xx, never a 500 for bad input,
 * and a database that is away is a 503 the client may try again.
 */
export function requestFaultOf<E>(err: unknown, wording: RequestFaultWording<E>): E {
  const fastifyError = err as Partial<FastifyError>;
  if (fastifyError.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
    return wording.tooLarge('the request body is larger than 16 MiB');
  const status = fastifyError.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500)
    return wording.invalid(fastifyError.message ?? 'bad request');
  if (isUnavailableError(err) || isTransientConflict(err))
    return wording.unavailable('the gate cannot reach its database; try again shortly');
  return wording.internal('an internal error occurred');
}
