import type { FastifyError } from 'fastify';
import { isTransientConflict, isUnavailableError } from '../store/queries/database.js';

/**
 * An error in OpenAI's own shape, `{error: {message, type, param, code}}`, with its status codes,
 * so the `openai` client (and the Agents SDK on it) reports it as it would the provider's.
 */
export class OpenAIError extends Error {
  override name = 'OpenAIError';
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
    readonly code: string | null = null,
    /** The request member the error is about, as OpenAI names it (`messages[0].content`). */
    readonly param: string | null = null,
    /** Seconds after which the same request may succeed (a rate limit). */
    readonly retryAfterS?: number,
  ) {
    super(message);
  }

  body() {
    return {
      error: { message: this.message, type: this.type, param: this.param, code: this.code },
    };
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

export const openaiUnauthenticated = (message: string) =>
  new OpenAIError(401, 'invalid_request_error', message, 'invalid_api_key');
export const openaiInvalidRequest = (message: string, param: string | null = null) =>
  new OpenAIError(400, 'invalid_request_error', message, null, param);

/** Any error as an OpenAI error: client faults keep their 4xx, never a 500 for bad input. */
export function openaiErrorOf(err: unknown): OpenAIError {
  if (err instanceof OpenAIError) return err;
  const fastifyError = err as Partial<FastifyError>;
  if (fastifyError.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
    return new OpenAIError(
      413,
      'invalid_request_error',
      'the request body is larger than 16 MiB',
      'request_too_large',
    );
  const status = fastifyError.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500)
    return openaiInvalidRequest(fastifyError.message ?? 'bad request');
  if (isUnavailableError(err) || isTransientConflict(err))
    return new OpenAIError(
      503,
      'server_error',
      'the gate cannot reach its database; try again shortly',
      'service_unavailable',
    );
  return new OpenAIError(500, 'server_error', 'an internal error occurred');
}
