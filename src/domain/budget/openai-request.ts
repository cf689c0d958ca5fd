/**
 * OpenAI's Chat Completions and Responses requests as the gate's OpenAI endpoint receives them:
 * read strictly (strict-body.ts), every member that becomes input bounded, the output limit made
 * explicit. Pure: no I/O.
 *
 * The bound, as for the Messages API (input-token-bound.ts): fixed overheads for the markup the
 * request does not contain (role markers, tool wrappers), chosen well above what a chat template
 * takes, plus
 * - each text (message contents, names, instructions, tool-call arguments and outputs) at its
 *   count by the model's own tokenizer, or its UTF-8 bytes (openai-tokens.ts);
 * - each structured part (tool definitions, response formats and their schemas, tool choices,
 *   stop sequences) at the bytes of its longest JSON rendering (json-text-bound.ts): OpenAI
 *   renders a schema into fewer characters than its JSON, and a token covers at least one byte;
 * - each image at `imageTokenCeiling`;
 * - a reasoning item sent back at the output of the response the gate saw produce it (as a
 *   thinking block, thinking-origins.ts), else the context ceiling.
 * What the gate cannot bound is refused: files and audio, server-side state (a previous
 * response, a conversation, a stored prompt), hosted tools (web and file search, code
 * interpreter: they add input the request does not hold), outputs billed apart (predicted
 * outputs, audio).
 */
import { z } from 'zod';
import { contextWindowCeiling, tokenOverhead, type InputBound } from './input-token-bound.js';
import { jsonTextBound } from './json-text-bound.js';
import { maxOutputTokensLimit, modelId } from './messages-request.js';
import { encodingOfModel, TextTokenCounter } from './openai-tokens.js';
import { readStrictBody } from './strict-body.js';
import { thinkingDigest } from './thinking-origins.js';

export type OpenAIEndpoint = 'chat_completions' | 'responses';

/**
 * Input tokens of one image, at most, by OpenAI's documented formulas: GPT-4o mini's is the
 * largest (2,833 tokens a image plus 5,667 a 512 px tile, up to 8 tiles once the image is scaled
 * to 2048 x 768: 48,169); the patch-based models stay under 4,000.
 */
export const imageTokenCeiling = 50_000;

/** The output limit written into a request that set none (capped by the run's allowance). */
export const defaultMaxOutputTokens = 16_384;

/** The most choices one Chat Completions request may ask for; each is billed its own output. */
const maxChoices = 16;

const maxTextLength = 16 * 1_048_576;
const text = z.string().max(maxTextLength);
/**
 * The tiers whose price is the table's: the standard one (`default`, which the gate sends when the
 * request names none, so a project's own default tier never decides) and the cheaper `flex`.
 * `auto`, `priority` and `scale` may bill above the table, so they are refused.
 */
const serviceTier = z
  .enum(['default', 'flex'], {
    error: 'must be "default" or "flex": other tiers are billed above the prices the gate books at',
  })
  .nullable()
  .optional();

const shortText = z.string().max(256);
const jsonObject = z.record(z.string(), z.unknown());
const finite = z.number();
const outputLimit = z.number().int().min(1).max(maxOutputTokensLimit);
const metadata = z.record(z.string().max(64), z.string().max(512)).optional();

const refused = (message: string) =>
  z.unknown().superRefine((_, ctx) => {
    ctx.addIssue({ code: 'custom', message });
  });
/** Matches a part of the named kind only to refuse it with a message that says why. */
function refusedPart<const T extends string>(type: T, message: string) {
  return z
    .object({ type: z.literal(type) })
    .loose()
    .superRefine((_, ctx) => {
      ctx.addIssue({ code: 'custom', message, path: ['type'] });
    });
}
const filesMessage =
  'files are refused: their tokens (extracted text and page images) cannot be bounded before the provider reads them; send the text itself';
const audioMessage =
  'audio is refused: the gate books text and image tokens only, and audio is billed apart';
const audioRefused = refused(audioMessage);

/** An image by URL: `data:` inline, or an address the provider fetches (see urlImagePaths). */
const imageUrl = z.string().min(1).max(maxTextLength);
const imageDetail = z.enum(['auto', 'low', 'high']).optional();

// ---- Chat Completions

const chatText = z.object({ type: z.literal('text'), text }).strict();
const chatImage = z
  .object({
    type: z.literal('image_url'),
    image_url: z.object({ url: imageUrl, detail: imageDetail }).strict(),
  })
  .strict();
const chatRefusal = z.object({ type: z.literal('refusal'), refusal: text }).strict();
const chatAudioPart = refusedPart('input_audio', audioMessage);
const chatFilePart = refusedPart('file', filesMessage);

const textContent = z.union([text, z.array(chatText).max(10_000)]);
const userContent = z.union([
  text,
  z
    .array(
      z.discriminatedUnion('type', [chatText, chatImage, chatAudioPart, chatFilePart], {
        error: 'must be a part of type text or image_url (files and audio are refused)',
      }),
    )
    .max(10_000),
]);
const toolCall = z
  .object({
    id: shortText,
    type: z.literal('function'),
    function: z.object({ name: shortText, arguments: text }).strict(),
  })
  .strict();

const chatMessage = z.discriminatedUnion(
  'role',
  [
    z
      .object({
        role: z.enum(['system', 'developer']),
        content: textContent,
        name: shortText.optional(),
      })
      .strict(),
    z
      .object({ role: z.literal('user'), content: userContent, name: shortText.optional() })
      .strict(),
    z
      .object({
        role: z.literal('assistant'),
        content: z
          .union([text, z.array(z.discriminatedUnion('type', [chatText, chatRefusal])).max(10_000)])
          .nullable()
          .optional(),
        name: shortText.optional(),
        refusal: text.nullable().optional(),
        tool_calls: z.array(toolCall).max(10_000).optional(),
        audio: audioRefused.optional(),
      })
      .strict(),
    z.object({ role: z.literal('tool'), content: textContent, tool_call_id: shortText }).strict(),
  ],
  { error: 'must be a message of role system, developer, user, assistant or tool' },
);

const chatTool = z.discriminatedUnion(
  'type',
  [
    z
      .object({
        type: z.literal('function'),
        function: z
          .object({
            name: shortText,
            description: text.optional(),
            parameters: jsonObject.optional(),
            strict: z.boolean().nullable().optional(),
          })
          .strict(),
      })
      .strict(),
    z.object({ type: z.literal('custom'), custom: jsonObject }).strict(),
  ],
  { error: 'only function and custom tools can be bounded' },
);

const chatSchema = z
  .object({
    model: modelId,
    messages: z.array(chatMessage).min(1).max(100_000),
    tools: z.array(chatTool).max(1_000).optional(),
    tool_choice: z.union([z.string().max(64), jsonObject]).optional(),
    parallel_tool_calls: z.boolean().optional(),
    response_format: jsonObject.optional(),
    max_completion_tokens: outputLimit.nullable().optional(),
    max_tokens: outputLimit.nullable().optional(),
    n: z.number().int().min(1).max(maxChoices).nullable().optional(),
    stream: z.boolean().nullable().optional(),
    stream_options: z
      .object({
        include_usage: z.boolean().optional(),
        include_obfuscation: z.boolean().optional(),
      })
      .strict()
      .nullable()
      .optional(),
    stop: z
      .union([z.string().max(1024), z.array(z.string().max(1024)).max(4)])
      .nullable()
      .optional(),
    temperature: finite.nullable().optional(),
    top_p: finite.nullable().optional(),
    presence_penalty: finite.nullable().optional(),
    frequency_penalty: finite.nullable().optional(),
    logit_bias: z.record(z.string().max(16), finite).nullable().optional(),
    logprobs: z.boolean().nullable().optional(),
    top_logprobs: z.number().int().min(0).max(20).nullable().optional(),
    seed: z.number().int().nullable().optional(),
    user: shortText.optional(),
    safety_identifier: shortText.optional(),
    prompt_cache_key: shortText.optional(),
    metadata: metadata.nullable(),
    store: z.boolean().nullable().optional(),
    service_tier: serviceTier,
    reasoning_effort: z.string().max(64).nullable().optional(),
    verbosity: z.string().max(64).nullable().optional(),
    modalities: z.array(z.literal('text')).nullable().optional(),
    audio: audioRefused.optional(),
    prediction: refused(
      'predicted outputs are refused: rejected prediction tokens are billed beyond max_completion_tokens',
    ).optional(),
    web_search_options: refused(
      'web search is refused: the pages it reads are input the gate cannot bound',
    ).optional(),
  })
  .strict();

// ---- Responses

const inputText = z.object({ type: z.literal('input_text'), text }).strict();
const inputImage = z
  .object({
    type: z.literal('input_image'),
    image_url: imageUrl.nullable().optional(),
    file_id: shortText.nullable().optional(),
    detail: imageDetail,
  })
  .strict();
const inputFile = refusedPart('input_file', filesMessage);
const inputAudio = refusedPart('input_audio', audioMessage);
const outputText = z
  .object({
    type: z.literal('output_text'),
    text,
    annotations: z.array(jsonObject).max(10_000).optional(),
    logprobs: z.array(jsonObject).optional(),
  })
  .strict();
const refusalPart = z.object({ type: z.literal('refusal'), refusal: text }).strict();
const inputParts = z
  .array(
    z.discriminatedUnion(
      'type',
      [inputText, inputImage, inputFile, inputAudio, outputText, refusalPart],
      {
        error: 'must be a part of type input_text, input_image, output_text or refusal',
      },
    ),
  )
  .max(10_000);

const itemStatus = z.enum(['in_progress', 'completed', 'incomplete']).optional();
const itemId = shortText.optional();

const messageItem = z
  .object({
    type: z.literal('message').optional(),
    id: itemId,
    status: itemStatus,
    role: z.enum(['user', 'assistant', 'system', 'developer']),
    content: z.union([text, inputParts]),
  })
  .strict();
const functionCall = z
  .object({
    type: z.literal('function_call'),
    id: itemId,
    status: itemStatus,
    call_id: shortText,
    name: shortText,
    arguments: text,
  })
  .strict();
const functionCallOutput = z
  .object({
    type: z.literal('function_call_output'),
    id: itemId.nullable(),
    status: itemStatus.nullable(),
    call_id: shortText,
    output: z.union([text, inputParts]),
  })
  .strict();
const customToolCall = z
  .object({
    type: z.literal('custom_tool_call'),
    id: itemId,
    call_id: shortText,
    name: shortText,
    input: text,
  })
  .strict();
const customToolCallOutput = z
  .object({
    type: z.literal('custom_tool_call_output'),
    id: itemId,
    call_id: shortText,
    output: z.union([text, inputParts]),
  })
  .strict();
const reasoningItem = z
  .object({
    type: z.literal('reasoning'),
    id: itemId,
    status: itemStatus,
    summary: z.array(z.object({ type: z.literal('summary_text'), text }).strict()).max(10_000),
    content: z.array(z.object({ type: z.literal('reasoning_text'), text }).strict()).optional(),
    encrypted_content: text.nullable().optional(),
  })
  .strict();

/** A message needs no `type`: the API reads an item without one as a message. */
const inputItem = z.preprocess(
  (value) =>
    typeof value === 'object' && value !== null && !('type' in value)
      ? { ...value, type: 'message' }
      : value,
  z.discriminatedUnion(
    'type',
    [
      messageItem.required({ type: true }),
      functionCall,
      functionCallOutput,
      customToolCall,
      customToolCallOutput,
      reasoningItem,
    ],
    {
      error:
        'must be an item of type message, function_call, function_call_output, custom_tool_call, custom_tool_call_output or reasoning (item references and hosted tools are refused)',
    },
  ),
);

const responsesTool = z.discriminatedUnion(
  'type',
  [
    z
      .object({
        type: z.literal('function'),
        name: shortText,
        description: text.nullable().optional(),
        parameters: jsonObject.nullable().optional(),
        strict: z.boolean().nullable().optional(),
      })
      .strict(),
    z
      .object({
        type: z.literal('custom'),
        name: shortText,
        description: text.optional(),
        format: jsonObject.optional(),
      })
      .strict(),
  ],
  {
    error:
      'only function and custom tools can be bounded: hosted tools (web search, file search, code interpreter, MCP, …) add input the request does not hold',
  },
);

const serverState = (what: string) =>
  refused(`${what} is refused: it adds input the gate cannot see; send the whole input`);

const responsesSchema = z
  .object({
    model: modelId,
    input: z.union([text, z.array(inputItem).max(100_000)]),
    instructions: text.nullable().optional(),
    tools: z.array(responsesTool).max(1_000).optional(),
    tool_choice: z.union([z.string().max(64), jsonObject]).optional(),
    parallel_tool_calls: z.boolean().nullable().optional(),
    max_tool_calls: z.number().int().min(1).nullable().optional(),
    text: jsonObject.nullable().optional(),
    reasoning: jsonObject.nullable().optional(),
    max_output_tokens: outputLimit.nullable().optional(),
    stream: z.boolean().nullable().optional(),
    stream_options: z
      .object({ include_obfuscation: z.boolean().optional() })
      .strict()
      .nullable()
      .optional(),
    temperature: finite.nullable().optional(),
    top_p: finite.nullable().optional(),
    top_logprobs: z.number().int().min(0).max(20).nullable().optional(),
    truncation: z.enum(['auto', 'disabled']).nullable().optional(),
    include: z.array(z.string().max(128)).max(64).nullable().optional(),
    user: shortText.optional(),
    safety_identifier: shortText.optional(),
    prompt_cache_key: shortText.optional(),
    prompt_cache_retention: z.string().max(64).nullable().optional(),
    metadata: metadata.nullable(),
    store: z.boolean().nullable().optional(),
    service_tier: serviceTier,
    previous_response_id: serverState('previous_response_id').optional(),
    conversation: serverState('a conversation').optional(),
    prompt: serverState('a stored prompt').optional(),
    background: z
      .literal(false, { error: 'background responses are refused: the gate meters what it relays' })
      .nullable()
      .optional(),
  })
  .strict();

// ---- The bound

/** An OpenAI request read and bounded, ready to be booked and forwarded. */
export interface OpenAIRequest {
  endpoint: OpenAIEndpoint;
  model: string;
  stream: boolean;
  /** The output limit the client set (per choice), or undefined: the gate writes one in. */
  askedMaxOutput: number | undefined;
  /** How many outputs the request asks for (Chat Completions' `n`). */
  choices: number;
  input: InputBound;
  /** Paths of the images given by an address the provider would fetch. */
  urlImages: string[];
  /** Digests of the reasoning items sent back, bounded by the output of their response. */
  reasoning: { digest: string; path: string }[];
  /** The body as JSON.parse read it (every member of it is carried into the bound). */
  body: Record<string, unknown>;
}

export type OpenAIRequestParse =
  { ok: true; request: OpenAIRequest } | { ok: false; message: string; path?: string };

class Tally {
  tokens = tokenOverhead.request;
  usesTools = false;
  readonly unbounded: string[] = [];
  readonly urlImages: string[] = [];
  readonly reasoning: { digest: string; path: string }[] = [];

  constructor(readonly counter: TextTokenCounter) {}

  text(value: string | null | undefined): void {
    if (value) this.tokens += this.counter.count(value);
  }

  block(value: string | null | undefined): void {
    this.tokens += tokenOverhead.block;
    this.text(value);
  }

  json(value: unknown): void {
    if (value !== undefined && value !== null)
      this.tokens += tokenOverhead.block + jsonTextBound(value);
  }

  image(url: string | null | undefined, path: string): void {
    this.tokens += tokenOverhead.block + imageTokenCeiling;
    if (url && !url.startsWith('data:')) this.urlImages.push(path);
  }
}

type ChatBody = z.output<typeof chatSchema>;
type ResponsesBody = z.output<typeof responsesSchema>;
type Part =
  | { type: 'text' | 'input_text' | 'output_text'; text: string }
  | { type: 'refusal'; refusal: string }
  | { type: 'image_url'; image_url: { url: string } }
  | { type: 'input_image'; image_url?: string | null };

function parts(
  tally: Tally,
  content: string | readonly unknown[] | null | undefined,
  path: string,
) {
  if (content === null || content === undefined) return;
  if (typeof content === 'string') {
    tally.block(content);
    return;
  }
  (content as Part[]).forEach((part, i) => {
    const at = `${path}[${i}]`;
    if (part.type === 'refusal') tally.block(part.refusal);
    else if (part.type === 'image_url') tally.image(part.image_url.url, `${at}.image_url.url`);
    else if (part.type === 'input_image') tally.image(part.image_url, `${at}.image_url`);
    else tally.block(part.text);
  });
}

function chatBound(body: ChatBody, tally: Tally): void {
  body.messages.forEach((message, m) => {
    tally.tokens += tokenOverhead.message;
    const path = `messages[${m}].content`;
    if ('name' in message) tally.text(message.name);
    if (message.role === 'assistant') {
      parts(tally, message.content, path);
      tally.text(message.refusal);
      for (const call of message.tool_calls ?? []) {
        tally.usesTools = true;
        tally.block(call.id);
        tally.text(call.function.name);
        tally.text(call.function.arguments);
      }
    } else if (message.role === 'tool') {
      tally.usesTools = true;
      tally.block(message.tool_call_id);
      parts(tally, message.content, path);
    } else parts(tally, message.content, path);
  });
  for (const tool of body.tools ?? []) {
    tally.usesTools = true;
    tally.tokens += tokenOverhead.tool + jsonTextBound(tool);
  }
  for (const control of [body.tool_choice, body.response_format, body.stop]) tally.json(control);
}

function responsesBound(body: ResponsesBody, tally: Tally): void {
  if (body.instructions) {
    tally.tokens += tokenOverhead.message;
    tally.block(body.instructions);
  }
  if (typeof body.input === 'string') {
    tally.tokens += tokenOverhead.message;
    tally.block(body.input);
  } else {
    body.input.forEach((item, i) => {
      const path = `input[${i}]`;
      tally.tokens += tokenOverhead.message;
      switch (item.type) {
        case 'message':
          parts(tally, item.content, `${path}.content`);
          break;
        case 'function_call':
        case 'custom_tool_call':
          tally.usesTools = true;
          tally.block(item.call_id);
          tally.text(item.name);
          tally.text(item.type === 'function_call' ? item.arguments : item.input);
          break;
        case 'function_call_output':
        case 'custom_tool_call_output':
          tally.usesTools = true;
          tally.block(item.call_id);
          parts(tally, item.output, `${path}.output`);
          break;
        case 'reasoning':
          for (const summary of item.summary) tally.block(summary.text);
          for (const part of item.content ?? []) tally.block(part.text);
          if (item.encrypted_content || item.id)
            tally.reasoning.push({ digest: thinkingDigest(reasoningKey(item)), path });
          else tally.unbounded.push(`${path}: a reasoning item with neither id nor content`);
          break;
      }
    });
  }
  for (const tool of body.tools ?? []) {
    tally.usesTools = true;
    tally.tokens += tokenOverhead.tool + jsonTextBound(tool);
  }
  for (const control of [body.tool_choice, body.text, body.reasoning]) tally.json(control);
}

/**
 * What identifies a reasoning item the gate saw produced: its encrypted content when it carries
 * it (what the provider decrypts and reads), else its id (a stored item the provider looks up).
 */
export function reasoningKey(item: { id?: string | undefined; encrypted_content?: string | null }) {
  return item.encrypted_content ? `enc:${item.encrypted_content}` : `id:${item.id ?? ''}`;
}

/** Parses and bounds one request of either endpoint (see the comment at the top). */
export function parseOpenAIRequest(raw: Uint8Array, endpoint: OpenAIEndpoint): OpenAIRequestParse {
  const read =
    endpoint === 'chat_completions'
      ? readStrictBody(raw, chatSchema)
      : readStrictBody(raw, responsesSchema);
  if (!read.ok) return read;
  const tally = new Tally(new TextTokenCounter(encodingOfModel(read.data.model)));
  let askedMaxOutput: number | undefined;
  let choices = 1;
  if (endpoint === 'chat_completions') {
    const body = read.data as ChatBody;
    if (typeof body.max_tokens === 'number' && typeof body.max_completion_tokens === 'number')
      return {
        ok: false,
        path: 'max_tokens',
        message: 'max_tokens: give max_completion_tokens or max_tokens, not both',
      };
    askedMaxOutput = body.max_completion_tokens ?? body.max_tokens ?? undefined;
    choices = body.n ?? 1;
    chatBound(body, tally);
  } else {
    const body = read.data as ResponsesBody;
    askedMaxOutput = body.max_output_tokens ?? undefined;
    responsesBound(body, tally);
  }
  if (tally.usesTools) tally.tokens += tokenOverhead.toolUse;
  const input: InputBound =
    tally.unbounded.length > 0
      ? { tokens: contextWindowCeiling, unbounded: tally.unbounded }
      : { tokens: tally.tokens, unbounded: [] };
  return {
    ok: true,
    request: {
      endpoint,
      model: read.data.model,
      stream: read.data.stream === true,
      askedMaxOutput,
      choices,
      input,
      urlImages: tally.urlImages,
      reasoning: tally.reasoning,
      body: read.value as Record<string, unknown>,
    },
  };
}

/**
 * The body that goes upstream: as it came, with the output limit written in (so the worst case
 * is known) and, on a streamed Chat Completion, its usage asked for (so it can be settled).
 */
export function forwardedBody(request: OpenAIRequest, maxOutputPerChoice: number): Buffer {
  const body: Record<string, unknown> = { ...request.body };
  body.service_tier ??= 'default';
  if (request.endpoint === 'responses') body.max_output_tokens = maxOutputPerChoice;
  else {
    if (typeof body.max_tokens === 'number') body.max_tokens = maxOutputPerChoice;
    else {
      delete body.max_tokens;
      body.max_completion_tokens = maxOutputPerChoice;
    }
    if (request.stream) {
      const options = typeof body.stream_options === 'object' ? body.stream_options : {};
      body.stream_options = { ...options, include_usage: true };
    }
  }
  return Buffer.from(JSON.stringify(body), 'utf8');
}
