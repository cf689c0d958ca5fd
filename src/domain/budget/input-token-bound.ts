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
import { imageTokenBound } from './image-tokens.js';
import { jsonTextBound } from './json-text-bound.js';
import type {
  ContentBlock,
  DocumentBlock,
  ImageBlock,
  ModelInput,
  TextBlock,
  ThinkingBlock,
} from './model-input-schema.js';
import { digestOfBlock, type ThinkingOrigins } from './thinking-origins.js';

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
 * What a part without a bound of its own is booked at: no model the shipped prices name has a
 * larger context window (GPT-4.1's 1,047,576 tokens is the largest). A bound computed from the
 * request is never cut to it: it is what it is, and the run's allowance refuses it if too large.
 */
export const contextWindowCeiling = 1_048_576;

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
  return { tokens, unbounded: [] };
}

/** An upper bound on the input tokens of a validated request (see the comment at the top). */
export function inputTokenBound(input: ModelInput, origins?: ThinkingOrigins): number {
  return inputTokenBoundOf(input, origins).tokens;
}
