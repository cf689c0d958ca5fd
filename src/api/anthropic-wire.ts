import { readJsonAnswer, StreamUsageReader } from '../domain/budget/upstream-usage.js';
import { AnthropicError } from './anthropic-errors.js';
import type { ModelWire } from './model-relay.js';

/** The Anthropic Messages API as the relay reads it. */
export const anthropicWire: ModelWire = {
  streamMeter() {
    const reader = new StreamUsageReader();
    return {
      report: reader.report,
      event(type, data) {
        reader.event(type, data);
        return type === 'message_delta' || type === 'message_stop';
      },
    };
  },
  readJsonAnswer,
  refusalStatuses: new Set([400, 401, 403, 404, 413, 429, 529]),
  isErrorBody(parsed) {
    const body = parsed as { type?: unknown; error?: { type?: unknown } } | null;
    return body?.type === 'error' && typeof body.error?.type === 'string';
  },
  failure(kind) {
    if (kind === 'timeout')
      return new AnthropicError(504, 'timeout_error', 'the model provider did not answer in time');
    if (kind === 'credential')
      return new AnthropicError(
        502,
        'api_error',
        "the model provider refused the gate's credential",
      );
    return new AnthropicError(502, 'api_error', 'the model provider could not be reached');
  },
  streamBrokeOff(failure) {
    const type = failure === 'timeout' ? 'timeout_error' : 'api_error';
    const message = `the model provider's answer ended early (${failure})`;
    return `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type, message } })}\n\n`;
  },
  requestIdHeader: 'request-id',
};
