import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A scripted stand-in for OpenAI's Chat Completions and Responses APIs: the model in every test
 * that drives the `openai` client or the Agents SDK through the gate. Nothing reaches the
 * internet. It records every request and answers as OpenAI does, billing like it: usage in a JSON
 * answer, a Chat Completions stream's usage chunk only when `stream_options.include_usage` asks
 * for it, and a Responses stream's usage on `response.completed`.
 */

export type FakeOutput =
  | { type: 'text'; text: string }
  /** Responses only: a reasoning item (its encrypted content when the request included it). */
  | { type: 'reasoning'; id: string; encrypted_content?: string }
  | { type: 'function_call'; name: string; arguments: string; call_id?: string };

export interface FakeReply {
  output: FakeOutput[];
  /** What the upstream reports; by default a small fixed usage. `null`: no usage at all. */
  usage?: Usage | null;
  /** Answers only once this settles. */
  waitFor?: Promise<unknown>;
  /** Streamed only: after this many events, waits for `until` before sending the rest. */
  pauseAt?: { events: number; until: Promise<unknown> };
  /** Streamed only: the stream stops after this many events (the connection is destroyed). */
  breakAfterEvents?: number;
  /** Answers with this HTTP status and an OpenAI error body. */
  status?: number;
  /** Streamed only: this many filler text deltas before the answer (a long stream). */
  fillerDeltas?: number;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: any;
  raw: Buffer;
}

export type FakeScript = (request: RecordedRequest, index: number) => FakeReply;

export const say = (text: string): FakeReply => ({ output: [{ type: 'text', text }] });
export const callTool = (name: string, args: Record<string, unknown>): FakeReply => ({
  output: [
    {
      type: 'function_call',
      name,
      arguments: JSON.stringify(args),
      call_id: `call_${randomUUID().slice(0, 8)}`,
    },
  ],
});

type Usage = { input_tokens: number; output_tokens: number; cached_tokens?: number };
const defaultUsage: Usage = { input_tokens: 11, output_tokens: 7 };
const id = (prefix: string) => `${prefix}_${randomUUID().replaceAll('-', '')}`;

function sendError(res: ServerResponse, status: number, message: string) {
  res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': id('req') });
  res.end(
    JSON.stringify({
      error: {
        message,
        type:
          status === 429
            ? 'rate_limit_error'
            : status >= 500
              ? 'server_error'
              : 'invalid_request_error',
        param: null,
        code: null,
      },
    }),
  );
}

function chatUsage(reply: FakeReply) {
  const usage = reply.usage === undefined ? defaultUsage : reply.usage;
  if (usage === null) return undefined;
  return {
    prompt_tokens: usage.input_tokens,
    completion_tokens: usage.output_tokens,
    total_tokens: usage.input_tokens + usage.output_tokens,
    prompt_tokens_details: { cached_tokens: usage.cached_tokens ?? 0 },
    completion_tokens_details: { reasoning_tokens: 0 },
  };
}

function responsesUsage(reply: FakeReply) {
  const usage = reply.usage === undefined ? defaultUsage : reply.usage;
  if (usage === null) return null;
  return {
    input_tokens: usage.input_tokens,
    input_tokens_details: { cached_tokens: usage.cached_tokens ?? 0 },
    output_tokens: usage.output_tokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: usage.input_tokens + usage.output_tokens,
  };
}

function chatMessage(reply: FakeReply) {
  const text = reply.output.flatMap((o) => (o.type === 'text' ? [o.text] : [])).join('');
  const calls = reply.output.flatMap((o, index) =>
    o.type === 'function_call'
      ? [
          {
            index,
            id: o.call_id ?? id('call'),
            type: 'function',
            function: { name: o.name, arguments: o.arguments },
          },
        ]
      : [],
  );
  return { text, calls };
}

/** The events of a Chat Completions stream, `[DONE]` last. */
function chatEvents(reply: FakeReply, body: any): string[] {
  const base = {
    id: id('chatcmpl'),
    object: 'chat.completion.chunk',
    created: 1,
    model: String(body.model),
  };
  const { text, calls } = chatMessage(reply);
  const chunk = (delta: unknown, finish: string | null) =>
    JSON.stringify({
      ...base,
      choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
    });
  const events = [chunk({ role: 'assistant', content: '' }, null)];
  for (let i = 0; i < (reply.fillerDeltas ?? 0); i++) events.push(chunk({ content: '.' }, null));
  if (text) events.push(chunk({ content: text }, null));
  calls.forEach((call, index) => events.push(chunk({ tool_calls: [{ ...call, index }] }, null)));
  events.push(chunk({}, calls.length > 0 ? 'tool_calls' : 'stop'));
  const usage = chatUsage(reply);
  if (body.stream_options?.include_usage === true && usage)
    events.push(JSON.stringify({ ...base, choices: [], usage }));
  events.push('[DONE]');
  return events.map((data) => `data: ${data}\n\n`);
}

function chatAnswer(reply: FakeReply, body: any) {
  const { text, calls } = chatMessage(reply);
  return {
    id: id('chatcmpl'),
    object: 'chat.completion',
    created: 1,
    model: String(body.model),
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: text || null,
          refusal: null,
          ...(calls.length > 0 && { tool_calls: calls.map(({ index: _, ...c }) => c) }),
        },
        finish_reason: calls.length > 0 ? 'tool_calls' : 'stop',
        logprobs: null,
      },
    ],
    usage: chatUsage(reply),
  };
}

function responseItems(reply: FakeReply) {
  return reply.output.map((o) =>
    o.type === 'reasoning'
      ? { type: 'reasoning', id: o.id, summary: [], encrypted_content: o.encrypted_content ?? null }
      : o.type === 'text'
        ? {
            type: 'message',
            id: id('msg'),
            status: 'completed',
            role: 'assistant',
            content: [{ type: 'output_text', text: o.text, annotations: [] }],
          }
        : {
            type: 'function_call',
            id: id('fc'),
            status: 'completed',
            call_id: o.call_id ?? id('call'),
            name: o.name,
            arguments: o.arguments,
          },
  );
}

function responseObject(
  reply: FakeReply,
  body: any,
  items: unknown[],
  status: string,
  responseId = id('resp'),
) {
  return {
    id: responseId,
    object: 'response',
    created_at: 1,
    status,
    model: String(body.model),
    output: status === 'completed' ? items : [],
    parallel_tool_calls: true,
    tool_choice: 'auto',
    tools: [],
    error: null,
    incomplete_details: null,
    instructions: null,
    metadata: {},
    temperature: 1,
    top_p: 1,
    max_output_tokens: body.max_output_tokens ?? null,
    usage: status === 'completed' ? responsesUsage(reply) : null,
  };
}

/** The events of a Responses stream, `response.completed` (with usage) last. */
function responsesEvents(reply: FakeReply, body: any): string[] {
  const items = responseItems(reply);
  const responseId = id('resp');
  let seq = 0;
  const events: [string, Record<string, unknown>][] = [
    [
      'response.created',
      { response: responseObject(reply, body, items, 'in_progress', responseId) },
    ],
  ];
  for (let i = 0; i < (reply.fillerDeltas ?? 0); i++)
    events.push([
      'response.output_text.delta',
      { item_id: 'filler', output_index: 0, content_index: 0, delta: '.' },
    ]);
  items.forEach((item, output_index) => {
    events.push(['response.output_item.added', { output_index, item }]);
    if (item.type === 'message')
      events.push([
        'response.output_text.delta',
        { item_id: item.id, output_index, content_index: 0, delta: item.content?.[0]?.text ?? '' },
      ]);
    events.push(['response.output_item.done', { output_index, item }]);
  });
  events.push([
    'response.completed',
    { response: responseObject(reply, body, items, 'completed', responseId) },
  ]);
  return events.map(
    ([type, data]) =>
      `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...data })}\n\n`,
  );
}

async function answer(res: ServerResponse, request: RecordedRequest, reply: FakeReply) {
  if (reply.waitFor) await reply.waitFor;
  if (reply.status) {
    sendError(res, reply.status, 'scripted upstream error');
    return;
  }
  const chat = request.path === '/v1/chat/completions';
  const body = request.body;
  if (body?.stream !== true) {
    res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': id('req') });
    res.end(
      JSON.stringify(
        chat
          ? chatAnswer(reply, body)
          : responseObject(reply, body, responseItems(reply), 'completed'),
      ),
    );
    return;
  }
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    'x-request-id': id('req'),
  });
  const events = chat ? chatEvents(reply, body) : responsesEvents(reply, body);
  for (const [index, event] of events.entries()) {
    if (reply.pauseAt?.events === index) await reply.pauseAt.until;
    if (reply.breakAfterEvents !== undefined && index >= reply.breakAfterEvents) {
      // What was written goes out first: the cut comes mid-stream, after the headers.
      await new Promise((resolve) => setTimeout(resolve, 50));
      res.destroy();
      return;
    }
    if (!res.write(event)) await new Promise((resolve) => res.once('drain', resolve));
  }
  res.end();
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export async function startFakeOpenAI(script: FakeScript = () => say('done')) {
  const requests: RecordedRequest[] = [];
  let current = script;
  let index = 0;
  const server = createServer((req, res) => {
    void (async () => {
      const raw = await readBody(req);
      let body: unknown;
      try {
        body = raw.length > 0 ? JSON.parse(raw.toString('utf8')) : undefined;
      } catch {
        body = undefined;
      }
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      const recorded: RecordedRequest = {
        method: req.method ?? 'GET',
        path,
        headers: req.headers,
        body,
        raw,
      };
      requests.push(recorded);
      if (req.method === 'POST' && (path === '/v1/chat/completions' || path === '/v1/responses')) {
        await answer(res, recorded, current(recorded, index++));
        return;
      }
      sendError(res, 404, `the fake upstream has no ${req.method ?? ''} ${path}`);
    })().catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    /** The recorded model requests (either API). */
    calls: () => requests.filter((r) => r.method === 'POST' && r.path !== '/'),
    setScript(next: FakeScript) {
      current = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}

export type FakeOpenAI = Awaited<ReturnType<typeof startFakeOpenAI>>;
