import type { UpstreamFailure } from '../broker/model-upstream.js';
import type { OpenAIEndpoint } from '../domain/budget/openai-request.js';
import {
  ChatStreamUsageReader,
  readOpenAIJsonAnswer,
  ResponsesStreamUsageReader,
} from '../domain/budget/openai-usage.js';
import { OpenAIError } from './openai-errors.js';
import type { ModelWire } from './model-relay.js';

/** OpenAI's Chat Completions and Responses APIs as the relay reads them. */

function failure(kind: UpstreamFailure | 'credential'): OpenAIError {
  if (kind === 'timeout')
    return new OpenAIError(504, 'timeout', 'the model provider did not answer in time', 'timeout');
  if (kind === 'credential')
    return new OpenAIError(502, 'server_error', "the model provider refused the gate's credential");
  return new OpenAIError(502, 'server_error', 'the model provider could not be reached');
}

function wire(endpoint: OpenAIEndpoint): ModelWire {
  return {
    streamMeter() {
      return endpoint === 'chat_completions'
        ? new ChatStreamUsageReader()
        : new ResponsesStreamUsageReader();
    },
    readJsonAnswer: readOpenAIJsonAnswer,
    refusalStatuses: new Set([400, 401, 403, 404, 409, 413, 422, 429]),
    isErrorBody(parsed) {
      const error = (parsed as { error?: { message?: unknown } } | null)?.error;
      return typeof error?.message === 'string';
    },
    failure,
    streamBrokeOff(kind) {
      const error = failure(kind).body().error;
      const message = `the model provider's answer ended early (${kind})`;
      if (endpoint === 'chat_completions')
        return `data: ${JSON.stringify({ error: { ...error, message } })}\n\n`;
      const event = { type: 'error', code: error.code ?? error.type, message, param: null };
      return `event: error\ndata: ${JSON.stringify(event)}\n\n`;
    },
    requestIdHeader: 'x-request-id',
  };
}

export const openaiWires: Record<OpenAIEndpoint, ModelWire> = {
  chat_completions: wire('chat_completions'),
  responses: wire('responses'),
};
