/**
 * The parts of a Messages request the input-token bound counts, as a zod schema: every block
 * kind the bound can count, and a clear refusal for the kinds it cannot. Pure.
 */
import { z } from 'zod';

/** The body limit already caps every string; these bound the counts of things. */
const maxTextLength = 16 * 1_048_576;
const maxMessages = 100_000;
const maxBlocks = 10_000;
const maxTools = 1_000;
const maxJsonDepth = 64;

const refusals = {
  other:
    'only text, image, document, thinking, redacted_thinking, tool_use and tool_result blocks can be bounded; search results and server-tool blocks are refused',
} as const;

/** JSON as JSON.parse makes it, no deeper than maxJsonDepth, numbers finite. */
function jsonProblem(root: unknown): string | undefined {
  const stack: { value: unknown; depth: number }[] = [{ value: root, depth: 1 }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const { value, depth } = item;
    if (value === null || typeof value === 'string' || typeof value === 'boolean') continue;
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) return 'numbers must be finite';
      continue;
    }
    if (typeof value !== 'object') return 'must be JSON';
    if (depth > maxJsonDepth) return `must be nested at most ${maxJsonDepth} deep`;
    const children = Array.isArray(value) ? (value as unknown[]) : Object.values(value);
    for (const child of children) stack.push({ value: child, depth: depth + 1 });
  }
  return undefined;
}

const jsonObject = z.record(z.string(), z.unknown()).superRefine((value, ctx) => {
  const problem = jsonProblem(value);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

const text = z.string().max(maxTextLength);
const shortName = z.string().min(1).max(256);
const cacheControl = z
  .object({
    type: z.literal('ephemeral'),
    // A one-hour cache write bills twice the input price, which no price of the table says.
    ttl: z
      .literal('5m', {
        error: 'must be "5m" or left out: a one-hour cache write is not priced by the gate',
      })
      .optional(),
  })
  .strict()
  .optional();

const textBlock = z.object({ type: z.literal('text'), text, cache_control: cacheControl }).strict();

/** Matches any block of the named kinds only to refuse it with a message that says why. */
function refused<const T extends readonly [string, ...string[]]>(types: T, message: string) {
  return z
    .object({ type: z.enum(types) })
    .loose()
    .superRefine((_, ctx) => {
      ctx.addIssue({ code: 'custom', message, path: ['type'] });
    });
}
const blockTypeError = {
  error:
    'must be a block of type text, image, document, thinking, redacted_thinking, tool_use or tool_result',
} as const;
const resultBlockTypeError = {
  error: 'must be a block of type text, image or document',
} as const;

/**
 * A plain string stands for one text block, as in the Messages API. Reading it as that block
 * keeps one path for every error and one shape for the bound.
 */
function textOrBlocks<T extends z.ZodType>(blocks: T) {
  return z.preprocess(
    (value) => (typeof value === 'string' ? [{ type: 'text', text: value }] : value),
    blocks,
  );
}

const otherBlock = refused(
  ['search_result', 'server_tool_use', 'web_search_tool_result', 'container_upload'],
  refusals.other,
);

const base64Data = z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/, 'must be base64');
const url = z.string().min(1).max(8192);
/** Inline data of the given media types, base64. */
function base64Source<T extends z.ZodType>(mediaType: T) {
  return z.object({ type: z.literal('base64'), media_type: mediaType, data: base64Data }).strict();
}
const fileId = z.object({ type: z.literal('file'), file_id: shortName }).strict();

const imageBlock = z
  .object({
    type: z.literal('image'),
    source: z.discriminatedUnion('type', [
      base64Source(z.enum(['image/jpeg', 'image/png', 'image/gif', 'image/webp'])),
      z.object({ type: z.literal('url'), url }).strict(),
      fileId,
    ]),
    cache_control: cacheControl,
  })
  .strict();

const documentBlock = z
  .object({
    type: z.literal('document'),
    source: z.discriminatedUnion('type', [
      base64Source(z.literal('application/pdf')),
      z
        .object({ type: z.literal('text'), media_type: z.literal('text/plain'), data: text })
        .strict(),
      z
        .object({
          type: z.literal('content'),
          content: textOrBlocks(
            z.array(z.discriminatedUnion('type', [textBlock, imageBlock], resultBlockTypeError)),
          ),
        })
        .strict(),
      z.object({ type: z.literal('url'), url }).strict(),
      fileId,
    ]),
    title: text.nullable().optional(),
    context: text.nullable().optional(),
    citations: z.object({ enabled: z.boolean() }).strict().nullable().optional(),
    cache_control: cacheControl,
  })
  .strict();

const thinkingBlock = z
  .object({ type: z.literal('thinking'), thinking: text, signature: text })
  .strict();
const redactedThinkingBlock = z
  .object({ type: z.literal('redacted_thinking'), data: text })
  .strict();

const toolResultBlock = z
  .object({
    type: z.literal('tool_result'),
    tool_use_id: shortName,
    content: textOrBlocks(
      z.array(
        z.discriminatedUnion(
          'type',
          [textBlock, imageBlock, documentBlock, otherBlock],
          resultBlockTypeError,
        ),
      ),
    ).optional(),
    is_error: z.boolean().optional(),
    cache_control: cacheControl,
  })
  .strict();

const toolUseBlock = z
  .object({
    type: z.literal('tool_use'),
    id: shortName,
    name: shortName,
    input: jsonObject,
    cache_control: cacheControl,
  })
  .strict();

const contentBlock = z.discriminatedUnion(
  'type',
  [
    textBlock,
    toolUseBlock,
    toolResultBlock,
    imageBlock,
    documentBlock,
    thinkingBlock,
    redactedThinkingBlock,
    otherBlock,
  ],
  blockTypeError,
);

const message = z
  .object({
    // A "system" message is a mid-conversation system message: text, bounded like any message.
    role: z.enum(['user', 'assistant', 'system']),
    content: textOrBlocks(z.array(contentBlock).min(1).max(maxBlocks)),
  })
  .strict();

const tool = z
  .object({
    type: z.literal('custom').optional(),
    name: shortName,
    description: text.optional(),
    input_schema: jsonObject,
    cache_control: cacheControl,
  })
  .strict();

/**
 * The parts of a Messages request that reach the model as input: `system`, `messages`, `tools`.
 * Anything else is refused: sampling parameters do not belong here, and a part the bound cannot
 * count must not slip through uncounted.
 */
export const modelInputSchema = z
  .object({
    system: textOrBlocks(z.array(textBlock).max(maxBlocks)).optional(),
    messages: z.array(message).min(1).max(maxMessages),
    tools: z.array(tool).max(maxTools).optional(),
  })
  .strict();

export type ModelInput = z.output<typeof modelInputSchema>;
export type TextBlock = z.output<typeof textBlock>;
export type ContentBlock = z.output<typeof contentBlock>;
export type ImageBlock = z.output<typeof imageBlock>;
export type DocumentBlock = z.output<typeof documentBlock>;
export type ThinkingBlock = z.output<typeof thinkingBlock> | z.output<typeof redactedThinkingBlock>;
