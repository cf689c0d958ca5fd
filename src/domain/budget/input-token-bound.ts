/**
 * A genuine upper bound on the input tokens of an Anthropic Messages request, computed from the
 * request itself. Pure: no I/O.
 *
 * Why it holds. A byte-level BPE tokenizer first writes the text as UTF-8 bytes and then merges
 * adjacent bytes into tokens; every token covers at least one byte, so a text never takes more
 * tokens than it has UTF-8 bytes, however the merges fall. (Byte-fallback tokenizers give one
 * token per byte at worst; the same holds.) The model does not see the request's JSON but a
 * rendering of it: the texts verbatim, structured parts (tool inputs, tool definitions) as JSON,
 * and markup around each message and block (role markers, block delimiters). So the bound is:
 *
 *   request overhead
 *   + for the system prompt and each message: message overhead + its parts
 *   + for each text block, tool_use or tool_result: block overhead + its parts
 *   + for each tool: tool overhead + its definition as JSON
 *   + the tool-use system prompt, when the request uses tools at all
 *
 * where a text part counts its UTF-8 bytes and a JSON part counts the bytes of its longest
 * common rendering (see `jsonTextBound`). The overheads are token counts for markup the caller
 * never sends, chosen well above what the Messages API documents or what a chat template takes.
 *
 * Parts whose tokens do not follow from bytes are refused rather than guessed: images (their
 * cost depends on pixels and on the model's resizing), documents, thinking blocks (their signed
 * content is not the text shown), server tools (their hidden prompts are unknown).
 */
import { z } from 'zod';

/** Tokens for markup around the parts, which the request does not contain. */
export const tokenOverhead = {
  /** Start and end of the whole prompt. */
  request: 32,
  /** Role markers and turn delimiters of the system prompt or one message. */
  message: 16,
  /** Delimiters of one content block, and tool_use / tool_result markup. */
  block: 16,
  /** Wrapping of one tool definition. */
  tool: 32,
  /** The tool-use system prompt the API adds when tools are in play (a few hundred, documented). */
  toolUse: 1_024,
} as const;

/** The body limit already caps every string; these bound the counts of things. */
const maxTextLength = 16 * 1_048_576;
const maxMessages = 100_000;
const maxBlocks = 10_000;
const maxTools = 1_000;
export const maxJsonDepth = 64;

const refusals = {
  image:
    'images are refused: their token cost depends on pixels and the model, not on bytes, so it cannot be bounded here',
  other:
    'only text, tool_use and tool_result blocks can be bounded; documents, thinking and server-tool blocks are refused',
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
  .object({ type: z.literal('ephemeral'), ttl: z.enum(['5m', '1h']).optional() })
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
  error: 'must be a block of type text, tool_use or tool_result',
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

const imageBlock = refused(['image'], refusals.image);
const otherBlock = refused(
  [
    'document',
    'search_result',
    'thinking',
    'redacted_thinking',
    'server_tool_use',
    'web_search_tool_result',
    'container_upload',
  ],
  refusals.other,
);

const toolResultBlock = z
  .object({
    type: z.literal('tool_result'),
    tool_use_id: shortName,
    content: textOrBlocks(
      z.array(z.discriminatedUnion('type', [textBlock, imageBlock, otherBlock], blockTypeError)),
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
  [textBlock, toolUseBlock, toolResultBlock, imageBlock, otherBlock],
  blockTypeError,
);

const message = z
  .object({
    role: z.enum(['user', 'assistant']),
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
type TextBlock = z.output<typeof textBlock>;
type ContentBlock = z.output<typeof contentBlock>;

function utf8Bytes(value: string): number {
  return Buffer.byteLength(value, 'utf8');
}

/**
 * Bytes of a JSON string literal with every non-ASCII UTF-16 unit written as \uXXXX, the
 * longest common rendering (Python's json.dumps default). Six bytes per unit is never less than
 * the unit's UTF-8 bytes, so the raw UTF-8 rendering is covered too.
 */
function jsonStringBound(value: string): number {
  let bytes = 2;
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i);
    if (unit >= 0x20 && unit < 0x7f) bytes += unit === 0x22 || unit === 0x5c ? 2 : 1;
    else bytes += 6;
  }
  return bytes;
}

/**
 * Bytes of a number in any shortest round-trip rendering. JavaScript writes integers below 1e21
 * in full; Python may add ".0", keep the sign of -0 or an exponent's zero (3 bytes of slack), and
 * writes a large integer with all its digits.
 */
function jsonNumberBound(value: number): number {
  const magnitude = Math.abs(value);
  const digits =
    magnitude >= 1e21 ? Math.floor(Math.log10(magnitude)) + 2 : JSON.stringify(value).length;
  return digits + 3;
}

/**
 * Bytes of a JSON value as the longest common serialiser writes it: ASCII-escaped strings and
 * Python's ", " and ": " separators (4 bytes a member, 2 an element), which covers canonical
 * and JSON.stringify output as well. Depth is bounded by the schema.
 */
export function jsonTextBound(value: unknown): number {
  if (value === null) return 4;
  if (typeof value === 'boolean') return 5;
  if (typeof value === 'number') return jsonNumberBound(value);
  if (typeof value === 'string') return jsonStringBound(value);
  if (Array.isArray(value)) {
    return (value as unknown[]).reduce<number>((sum, item) => sum + jsonTextBound(item) + 2, 2);
  }
  if (typeof value === 'object') {
    // Like JSON.stringify, a member whose value is undefined is not written.
    return Object.entries(value).reduce(
      (sum, [key, item]) =>
        item === undefined ? sum : sum + jsonStringBound(key) + jsonTextBound(item) + 4,
      2,
    );
  }
  throw new TypeError('a structured part of the input is not JSON');
}

function textBlocksBound(blocks: readonly TextBlock[]): number {
  return blocks.reduce((sum, block) => sum + tokenOverhead.block + utf8Bytes(block.text), 0);
}

function blockBound(block: ContentBlock): number {
  switch (block.type) {
    case 'text':
      return tokenOverhead.block + utf8Bytes(block.text);
    case 'tool_use':
      return (
        tokenOverhead.block +
        utf8Bytes(block.id) +
        utf8Bytes(block.name) +
        jsonTextBound(block.input)
      );
    case 'tool_result': {
      // The schema refused every other kind of block inside a tool result.
      const texts = (block.content ?? []).filter(isTextBlock);
      return tokenOverhead.block + utf8Bytes(block.tool_use_id) + textBlocksBound(texts);
    }
    default:
      throw new TypeError(`a ${block.type} block cannot be bounded`);
  }
}

function isTextBlock(block: { type: string }): block is TextBlock {
  return block.type === 'text';
}

function usesTools(input: ModelInput): boolean {
  if ((input.tools?.length ?? 0) > 0) return true;
  return input.messages.some((m) =>
    m.content.some((b) => b.type === 'tool_use' || b.type === 'tool_result'),
  );
}

/** An upper bound on the input tokens of a validated request (see the comment at the top). */
export function inputTokenBound(input: ModelInput): number {
  let tokens = tokenOverhead.request;
  if (input.system !== undefined) tokens += tokenOverhead.message + textBlocksBound(input.system);
  for (const { content } of input.messages) {
    tokens += tokenOverhead.message + content.reduce((sum, block) => sum + blockBound(block), 0);
  }
  // The whole definition as JSON, cache_control too: counting a little more is safe.
  for (const definition of input.tools ?? [])
    tokens += tokenOverhead.tool + jsonTextBound(definition);
  if (usesTools(input)) tokens += tokenOverhead.toolUse;
  return tokens;
}
