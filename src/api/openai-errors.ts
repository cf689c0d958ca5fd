import { ModelApiError, requestFaultOf, type RequestFaultWording } from './model-api-error.js';

/**
 * An error in OpenAI's own shape, `{error: {message, type, param, code}}`, with its status codes,
 * so the `openai` client (and the Agents SDK on it) reports it as it would the provider's.
 */
export class OpenAIError extends ModelApiError {
  override name = 'OpenAIError';
  constructor(
    status: number,
    type: string,
    message: string,
    readonly code: string | null = null,
    /** The request member the error is about, as OpenAI names it (`messages[0].content`). */
    readonly param: string | null = null,
    retryAfterS?: number,
  ) {
    super(status, type, message, retryAfterS);
  }

  body() {
    return {
      error: { message: this.message, type: this.type, param: this.param, code: this.code },
    };
  }
}

export const openaiUnauthenticated = (message: string) =>
  new OpenAIError(401, 'invalid_request_error', message, 'invalid_api_key');
export const openaiInvalidRequest = (message: string, param: string | null = null) =>
  new OpenAIError(400, 'invalid_request_error', message, null, param);

const openaiFaults: RequestFaultWording<OpenAIError> = {
  tooLarge: (message) =>
    new OpenAIError(413, 'invalid_request_error', message, 'request_too_large'),
  invalid: (message) => openaiInvalidRequest(message),
  unavailable: (message) => new OpenAIError(503, 'server_error', message, 'service_unavailable'),
  internal: (message) => new OpenAIError(500, 'server_error', message),
};

/** Any error as an OpenAI error. */
export function openaiErrorOf(err: unknown): OpenAIError {
  return err instanceof OpenAIError ? err : requestFaultOf(err, openaiFaults);
}
