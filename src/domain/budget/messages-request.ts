/**
 * A Messages API request as the gate's model endpoint receives it: the raw bytes, parsed once,
 * for admission. The same bytes go upstream, so what is read here is what the provider reads.
 * Pure: no I/O.
 */
import { z } from 'zod';
import { inputTokenBoundOf, type InputBound } from './input-token-bound.js';
import { modelInputSchema, type ModelInput } from './model-input-schema.js';
import { type ThinkingOrigins } from './thinking-origins.js';
import { readStrictBody } from './strict-body.js';

/** Far above any model's output limit; past it a number is a mistake, not a request. */
export const maxOutputTokensLimit = 1_000_000;

/** An identifier, never prose: it is written to the ledger as it is. */
export const modelId = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:@/-]{0,127}$/, 'must be a model id of 1 to 128 characters');

const jsonObject = z.record(z.string(), z.unknown());
const finite = z.number();

/**
 * Context edits that only clear what the request holds. Compaction is refused: it runs a
 * summarising pass over the whole input whose tokens are billed beside the request's own, and no
 * booking of max_tokens plus the input bound covers it.
 */
const contextManagement = jsonObject.superRefine((value, ctx) => {
  const edits = value.edits;
  if (edits === undefined) return;
  if (!Array.isArray(edits)) {
    ctx.addIssue({ code: 'custom', path: ['edits'], message: 'must be a list of edits' });
    return;
  }
  (edits as unknown[]).forEach((edit, i) => {
    const type = typeof edit === 'object' && edit !== null ? (edit as { type?: unknown }).type : 0;
    if (typeof type !== 'string' || !/^clear_[a-z_]+_\d{8}$/.test(type)) {
      ctx.addIssue({
        code: 'custom',
        path: ['edits', i, 'type'],
        message:
          'only clearing edits (clear_tool_uses_…, clear_thinking_…) are accepted: compaction runs a summarising pass whose tokens the gate cannot book',
      });
    }
  });
});

/**
 * The fields the gate understands. Sampling and metadata do not reach the model as input;
 * the controls that shape the prompt (tool choice, thinking, output format, context edits, stop
 * sequences) are counted as if they were text. Anything else is refused: a field the gate does
 * not know could add input it cannot bound (an MCP server, a container).
 */
const messagesRequestSchema = modelInputSchema.safeExtend({
  model: modelId,
  max_tokens: z.number().int().min(1).max(maxOutputTokensLimit),
  stream: z.boolean().optional(),
  // The Messages API knows one member here; anything else would be forwarded and never counted.
  metadata: z
    .object({ user_id: z.string().max(256).nullable().optional() })
    .strict()
    .optional(),
  temperature: finite.optional(),
  top_p: finite.optional(),
  top_k: z.number().int().min(0).optional(),
  service_tier: z.string().max(64).optional(),
  stop_sequences: z.array(z.string().max(1024)).max(1024).optional(),
  tool_choice: jsonObject.optional(),
  thinking: jsonObject.optional(),
  output_config: jsonObject.optional(),
  context_management: contextManagement.optional(),
});

/**
 * `count_tokens` takes the same input and controls, and produces nothing: no output limit, no
 * stream, no sampling.
 */
const countTokensRequestSchema = messagesRequestSchema
  .omit({
    max_tokens: true,
    stream: true,
    metadata: true,
    temperature: true,
    top_p: true,
    top_k: true,
    service_tier: true,
    stop_sequences: true,
  })
  .strict();

export type MessagesEndpoint = 'messages' | 'count_tokens';

export interface MessagesRequest {
  model: string;
  /** The output limit asked for; 0 for count_tokens, which produces no output. */
  maxTokens: number;
  stream: boolean;
  input: ModelInput;
  /** Prompt-shaping controls, counted as JSON text. */
  controls: unknown[];
}

export type MessagesRequestParse =
  { ok: true; request: MessagesRequest } | { ok: false; message: string; path?: string };

/**
 * Parses the body once: strict UTF-8, JSON, no duplicate member names, the known fields, and
 * every member carried into what is bounded (so what is bounded is exactly what is forwarded).
 */
export function parseMessagesRequest(
  raw: Uint8Array,
  endpoint: MessagesEndpoint = 'messages',
): MessagesRequestParse {
  const schema = endpoint === 'messages' ? messagesRequestSchema : countTokensRequestSchema;
  const read = readStrictBody(raw, schema);
  if (!read.ok) return read;
  const body: Partial<z.output<typeof messagesRequestSchema>> & z.output<typeof schema> = read.data;
  return {
    ok: true,
    request: {
      model: body.model,
      maxTokens: body.max_tokens ?? 0,
      stream: body.stream === true,
      input: { system: body.system, messages: body.messages, tools: body.tools },
      controls: [
        body.tool_choice,
        body.thinking,
        body.output_config,
        body.context_management,
        body.stop_sequences,
      ].filter((part) => part !== undefined),
    },
  };
}

/** The input bound of a parsed request, its controls counted. */
export function messagesInputBound(
  request: MessagesRequest,
  origins?: ThinkingOrigins,
): InputBound {
  return inputTokenBoundOf(request.input, origins, request.controls);
}
