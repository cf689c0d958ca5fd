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
 * Parts whose tokens do not follow from bytes have their own bounds: an image by its pixels
 * (see image-tokens.ts); a plain-text document by its bytes; a thinking or redacted thinking
 * block by the output tokens of the response that produced it, when the gate saw that response
 * (the block's content was that response's output). A part with no bound of its own (a PDF, a
 * thinking block from elsewhere) makes the whole request count as the largest context window
 * any model has: no request's input can be larger. Server tools (hidden prompts, fetched
 * content) are refused.
 */
import { z } from 'zod';
import { imageTokenBound } from './image-tokens.js';
import { sha256Hex } from '../ledger/digest.js';

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

/**
 * No model's context window is larger ("up to 1M tokens, depending on the model": Context
 * windows, in the provider's documentation), so no request's input can be.
 */
export const contextWindowCeiling = 1_000_000;

/** The body limit already caps every string; these bound the counts of things. */
const maxTextLength = 16 * 1_048_576;
const maxMessages = 100_000;
const maxBlocks = 10_000;
const maxTools = 1_000;
export const maxJsonDepth = 64;

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
const fileId = z.object({ type: z.literal('file'), file_id: shortName }).strict();

const imageBlock = z
  .object({
    type: z.literal('image'),
    source: z.discriminatedUnion('type', [
      z
        .object({
          type: z.literal('base64'),
          media_type: z.enum(['image/jpeg', 'image/png', 'image/gif', 'image/webp']),
          data: base64Data,
        })
        .strict(),
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
      z
        .object({
          type: z.literal('base64'),
          media_type: z.literal('application/pdf'),
          data: base64Data,
        })
        .strict(),
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
type TextBlock = z.output<typeof textBlock>;
type ContentBlock = z.output<typeof contentBlock>;
type ImageBlock = z.output<typeof imageBlock>;
type DocumentBlock = z.output<typeof documentBlock>;
type ThinkingBlock = z.output<typeof thinkingBlock> | z.output<typeof redactedThinkingBlock>;

/** The output tokens of a response the gate saw produce a thinking block, by the block's digest. */
export interface ThinkingOrigin {
  /** The response (its reservation): blocks of one response share its output tokens. */
  response: string;
  outputTokens: number;
}
export type ThinkingOrigins = ReadonlyMap<string, ThinkingOrigin>;

/** A signature (or a redacted block's data) names one block; the upstream verifies it. */
export function thinkingDigest(signatureOrData: string): string {
  return `sha256:${sha256Hex(signatureOrData)}`;
}

function digestOfBlock(block: ThinkingBlock): string {
  return thinkingDigest(block.type === 'thinking' ? block.signature : block.data);
}

/** The digests of every thinking and redacted thinking block, to look their origins up. */
export function thinkingDigests(input: ModelInput): string[] {
  return input.messages.flatMap(({ content }) =>
    content.filter(isThinkingBlock).map((block) => digestOfBlock(block)),
  );
}

function isThinkingBlock(block: { type: string }): block is ThinkingBlock {
  return block.type === 'thinking' || block.type === 'redacted_thinking';
}

/** What a walk over the request adds up: bounded tokens, responses cited, unbounded parts. */
class Tally {
  tokens = 0;
  readonly responses = new Map<string, number>();
  readonly unbounded: string[] = [];
  /** Thinking blocks seen so far, by digest: the same block twice is bounded by nothing. */
  readonly thinking = new Set<string>();

  constructor(readonly origins: ThinkingOrigins) {}
}

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

function imageBound(block: ImageBlock): number {
  return tokenOverhead.block + imageTokenBound(block.source);
}

function optionalTextBytes(value: string | null | undefined): number {
  return value ? utf8Bytes(value) : 0;
}

/**
 * A plain-text document is its bytes, and a content document its blocks. A PDF's text cannot be
 * bounded from its bytes (compressed streams, font maps turning a byte into many characters),
 * and citation markup per sentence is undocumented: those count as unbounded.
 */
function documentBound(block: DocumentBlock, path: string, tally: Tally): number {
  const framing =
    tokenOverhead.block + optionalTextBytes(block.title) + optionalTextBytes(block.context);
  const { source } = block;
  if (block.citations?.enabled === true) {
    tally.unbounded.push(`${path}: a document with citations`);
    return framing;
  }
  if (source.type === 'text') return framing + utf8Bytes(source.data);
  if (source.type === 'content') {
    return (
      framing +
      source.content.reduce(
        (sum, part) => sum + (part.type === 'text' ? textBlocksBound([part]) : imageBound(part)),
        0,
      )
    );
  }
  tally.unbounded.push(
    `${path}: a ${source.type === 'base64' ? 'PDF' : `${source.type} document`}`,
  );
  return framing;
}

/** A thinking block costs the output of the response that produced it, counted once per response. */
function thinkingBound(block: ThinkingBlock, path: string, tally: Tally): number {
  const digest = digestOfBlock(block);
  const origin = tally.origins.get(digest);
  // Its response's output covers one copy; a provider may bill every copy sent.
  if (tally.thinking.has(digest)) {
    tally.unbounded.push(`${path}: a ${block.type} block sent twice`);
  } else if (origin === undefined) {
    tally.unbounded.push(`${path}: a ${block.type} block this gate did not see produced`);
  } else {
    tally.responses.set(origin.response, origin.outputTokens);
  }
  tally.thinking.add(digest);
  return tokenOverhead.block + (block.type === 'thinking' ? utf8Bytes(block.thinking) : 0);
}

function blockBound(block: ContentBlock, path: string, tally: Tally): number {
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
    case 'tool_result':
      return (
        tokenOverhead.block +
        utf8Bytes(block.tool_use_id) +
        (block.content ?? []).reduce(
          (sum, part, i) => sum + blockBound(part as ContentBlock, `${path}.content[${i}]`, tally),
          0,
        )
      );
    case 'image':
      return imageBound(block);
    case 'document':
      return documentBound(block, path, tally);
    case 'thinking':
    case 'redacted_thinking':
      return thinkingBound(block, path, tally);
    default:
      throw new TypeError(`a ${block.type} block cannot be bounded`);
  }
}

function usesTools(input: ModelInput): boolean {
  if ((input.tools?.length ?? 0) > 0) return true;
  return input.messages.some((m) =>
    m.content.some((b) => b.type === 'tool_use' || b.type === 'tool_result'),
  );
}

export interface InputBound {
  tokens: number;
  /** Parts without a bound of their own, which made the request count as the ceiling. */
  unbounded: string[];
}

/** An upper bound on the input tokens of a validated request, with what made it what it is. */
export function inputTokenBoundOf(
  input: ModelInput,
  origins: ThinkingOrigins = new Map(),
  extraJsonParts: readonly unknown[] = [],
): InputBound {
  const tally = new Tally(origins);
  let tokens = tokenOverhead.request;
  if (input.system !== undefined) tokens += tokenOverhead.message + textBlocksBound(input.system);
  input.messages.forEach(({ content }, m) => {
    tokens += tokenOverhead.message;
    content.forEach((block, b) => {
      tokens += blockBound(block, `messages[${m}].content[${b}]`, tally);
    });
  });
  // The whole definition as JSON, cache_control too: counting a little more is safe.
  for (const definition of input.tools ?? [])
    tokens += tokenOverhead.tool + jsonTextBound(definition);
  if (usesTools(input)) tokens += tokenOverhead.toolUse;
  for (const part of extraJsonParts) tokens += tokenOverhead.block + jsonTextBound(part);
  for (const outputTokens of tally.responses.values()) tokens += outputTokens;
  if (tally.unbounded.length > 0)
    return { tokens: contextWindowCeiling, unbounded: tally.unbounded };
  return { tokens: Math.min(tokens, contextWindowCeiling), unbounded: [] };
}

/** An upper bound on the input tokens of a validated request (see the comment at the top). */
export function inputTokenBound(input: ModelInput, origins?: ThinkingOrigins): number {
  return inputTokenBoundOf(input, origins).tokens;
}
