import { ModelApiError, requestFaultOf, type RequestFaultWording } from './model-api-error.js';

/**
 * An error in the Anthropic Messages API's own shape, `{type: "error", error: {type, message}}`,
 * with its status codes, so an SDK pointed at the gate reports it as it would the provider's.
 */
export class AnthropicError extends ModelApiError {
  override name = 'AnthropicError';

  body() {
    return { type: 'error', error: { type: this.type, message: this.message }, request_id: null };
  }
}

export const unauthenticated = (message: string) =>
  new AnthropicError(401, 'authentication_error', message);
export const invalidRequest = (message: string) =>
  new AnthropicError(400, 'invalid_request_error', message);

const anthropicFaults: RequestFaultWording<AnthropicError> = {
  tooLarge: (message) => new AnthropicError(413, 'request_too_large', message),
  invalid: invalidRequest,
  unavailable: (message) => new AnthropicError(503, 'api_error', message),
  internal: (message) => new AnthropicError(500, 'api_error', message),
};

/** Any error as an Anthropic error. */
export function anthropicErrorOf(err: unknown): AnthropicError {
  return err instanceof AnthropicError ? err : requestFaultOf(err, anthropicFaults);
}
