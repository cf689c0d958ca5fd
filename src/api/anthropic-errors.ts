import type { FastifyError } from 'fastify';
import { isTransientConflict, isUnavailableError } from '../store/queries/database.js';

/**
 * An error in the Anthropic Messages API's own shape, `{type: "error", error: {type, message}}`,
 * with its status codes, so an SDK pointed at the gate reports it as it would the provider's.
 */
export class AnthropicError extends Error {
  override name = 'AnthropicError';
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
    /** Seconds after which the same request may succeed (a rate limit). */
    readonly retryAfterS?: number,
  ) {
    super(message);
  }

  body() {
    return { type: 'error', error: { type: this.type, message: this.message }, request_id: null };
  }

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

export const unauthenticated = (message: string) =>
  new AnthropicError(401, 'authentication_error', message);
export const invalidRequest = (message: string) =>
  new AnthropicError(400, 'invalid_request_error', message);

/** Any error as an Anthropic error: client faults keep their 4xx, never a 500 for bad input. */
export function anthropicErrorOf(err: unknown): AnthropicError {
  if (err instanceof AnthropicError) return err;
  const fastifyError = err as Partial<FastifyError>;
  if (fastifyError.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
    return new AnthropicError(413, 'request_too_large', 'the request body is larger than 16 MiB');
  const status = fastifyError.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500)
    return invalidRequest(fastifyError.message ?? 'bad request');
  if (isUnavailableError(err) || isTransientConflict(err))
    return new AnthropicError(
      503,
      'api_error',
      'the gate cannot reach its database; try again shortly',
    );
  return new AnthropicError(500, 'api_error', 'an internal error occurred');
}
