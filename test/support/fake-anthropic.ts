import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A scripted stand-in for the Anthropic Messages API: the model in every test that drives a
 * real SDK. Nothing reaches the internet. It records every request (headers and body) and
 * answers `POST /v1/messages` (streamed as server-sent events when the body asks for it, JSON
 * otherwise) and `POST /v1/messages/count_tokens` with what the test's script says.
 */

export type FakeBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string };

export interface FakeReply {
  content: FakeBlock[];
  stop_reason?: 'end_turn' | 'tool_use' | 'max_tokens';
  /** What the upstream reports; by default a small fixed usage. */
  usage?: {
    input_tokens: number;
    output_tokens: number;
    cache_creation_input_tokens?: number;
    cache_read_input_tokens?: number;
  };
  /** Milliseconds before the first byte. */
  delayMs?: number;
  /** Answers only once this settles (a test holds the upstream until it is ready). */
  waitFor?: Promise<unknown>;
  /** Run when the request arrives (the gate has admitted it), and answered once it settles. */
  onArrival?: () => Promise<unknown>;
  /** Streamed only: the whole stream in one write, as a short answer often arrives. */
  whole?: boolean;
  /** Streamed only: after this many events, waits for `until` before sending the rest. */
  pauseAt?: { events: number; until: Promise<unknown> };
  /** Streamed only: the stream stops after this many events (the connection is destroyed). */
  breakAfterEvents?: number;
  /** Streamed only: after this many events, an `error` event and the end of the stream. */
  errorAfterEvents?: number;
  /** Never answers (a hung upstream); the connection stays open until the client gives up. */
  hang?: boolean;
  /** Answers with this HTTP status and an Anthropic error body instead of a message. */
  status?: number;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  /** The parsed JSON body, or undefined when the body was not JSON. */
  body: any;
  /** The body's bytes as received. */
  raw: Buffer;
}

export type FakeScript = (request: RecordedRequest, index: number) => FakeReply;

/** The conversation's turns so far: how many assistant messages the request carries. */
export function assistantTurns(request: RecordedRequest): number {
  const messages = (request.body?.messages ?? []) as { role: string }[];
  return messages.filter((m) => m.role === 'assistant').length;
}

/** Whether the request comes from the agent's main loop (it offers tools), not a side request. */
export function offersTools(request: RecordedRequest, name?: string): boolean {
  const tools = (request.body?.tools ?? []) as { name?: string }[];
  return name === undefined ? tools.length > 0 : tools.some((t) => t.name === name);
}

export const text = (value: string): FakeReply => ({
  content: [{ type: 'text', text: value }],
  stop_reason: 'end_turn',
});

export const toolUses = (
  ...calls: { name: string; input: Record<string, unknown>; id?: string }[]
): FakeReply => ({
  content: calls.map((c) => ({
    type: 'tool_use' as const,
    id: c.id ?? `toolu_${randomUUID().replaceAll('-', '')}`,
    name: c.name,
    input: c.input,
  })),
  stop_reason: 'tool_use',
});

/**
 * The usual agent script: main-loop request number k (counted by the assistant turns it
 * carries) gets `steps[k]`; past the end, and for side requests (no tools offered), a short text.
 */
export function agentScript(steps: FakeReply[], done = 'done'): FakeScript {
  return (request) => {
    if (!offersTools(request)) return text(done);
    return steps[assistantTurns(request)] ?? text(done);
  };
}

const defaultUsage = { input_tokens: 11, output_tokens: 7 };

const bytes = (value: unknown) =>
  Buffer.byteLength(typeof value === 'string' ? value : JSON.stringify(value), 'utf8');

/**
 * The input tokens a provider could bill for these bytes, at their most: one token per UTF-8
 * byte of what the model reads (texts as they are, structured parts as compact JSON), plus
 * markup per message and block and a tool-use prompt. Read from the bytes as received (JSON.parse
 * keeps a "__proto__" member as data), so a member the gate did not count is billed here.
 * Images, documents and thinking blocks are not modelled.
 */
export function billedInputTokens(raw: Buffer): number {
  const body = JSON.parse(raw.toString('utf8')) as Record<string, any>;
  const markup = 8;
  const blocks = (content: unknown): number =>
    typeof content === 'string'
      ? markup + bytes(content)
      : (content as Record<string, any>[]).reduce((sum, block) => {
          if (block.type === 'text') return sum + markup + bytes(block.text);
          if (block.type === 'tool_use')
            return sum + markup + bytes(block.id) + bytes(block.name) + bytes(block.input);
          if (block.type === 'tool_result')
            return (
              sum + markup + bytes(block.tool_use_id) + (block.content ? blocks(block.content) : 0)
            );
          return sum + bytes(block);
        }, 0);
  let tokens = 2 * markup;
  let usesTools = false;
  for (const [name, value] of Object.entries(body)) {
    if (name === 'system') tokens += markup + blocks(value);
    else if (name === 'messages') {
      for (const message of value as { content: unknown }[]) {
        tokens += markup + blocks(message.content);
        if (JSON.stringify(message.content).includes('"tool_')) usesTools = true;
      }
    } else if (name === 'tools') {
      for (const tool of value as unknown[]) tokens += markup + bytes(tool);
      usesTools ||= (value as unknown[]).length > 0;
    } else if (
      ['tool_choice', 'thinking', 'output_config', 'context_management', 'stop_sequences'].includes(
        name,
      )
    )
      tokens += markup + bytes(value);
  }
  return tokens + (usesTools ? 512 : 0);
}

const sseText = (event: string, data: unknown) =>
  `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

function sse(res: ServerResponse, event: string, data: unknown) {
  res.write(sseText(event, data));
}

function streamEvents(reply: FakeReply, model: string, id: string): [string, unknown][] {
  const usage = reply.usage ?? defaultUsage;
  const events: [string, unknown][] = [
    [
      'message_start',
      {
        type: 'message_start',
        message: {
          id,
          type: 'message',
          role: 'assistant',
          model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { ...usage, output_tokens: 1 },
        },
      },
    ],
  ];
  reply.content.forEach((block, index) => {
    if (block.type === 'text') {
      events.push([
        'content_block_start',
        { type: 'content_block_start', index, content_block: { type: 'text', text: '' } },
      ]);
      events.push([
        'content_block_delta',
        { type: 'content_block_delta', index, delta: { type: 'text_delta', text: block.text } },
      ]);
    } else if (block.type === 'redacted_thinking') {
      events.push([
        'content_block_start',
        { type: 'content_block_start', index, content_block: block },
      ]);
    } else if (block.type === 'thinking') {
      events.push([
        'content_block_start',
        { type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '' } },
      ]);
      events.push([
        'content_block_delta',
        {
          type: 'content_block_delta',
          index,
          delta: { type: 'thinking_delta', thinking: block.thinking },
        },
      ]);
      events.push([
        'content_block_delta',
        {
          type: 'content_block_delta',
          index,
          delta: { type: 'signature_delta', signature: block.signature },
        },
      ]);
    } else {
      events.push([
        'content_block_start',
        {
          type: 'content_block_start',
          index,
          content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} },
        },
      ]);
      events.push([
        'content_block_delta',
        {
          type: 'content_block_delta',
          index,
          delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) },
        },
      ]);
    }
    events.push(['content_block_stop', { type: 'content_block_stop', index }]);
  });
  events.push([
    'message_delta',
    {
      type: 'message_delta',
      delta: { stop_reason: reply.stop_reason ?? 'end_turn', stop_sequence: null },
      usage: { output_tokens: usage.output_tokens },
    },
  ]);
  events.push(['message_stop', { type: 'message_stop' }]);
  return events;
}

function sendError(res: ServerResponse, status: number, message: string) {
  const type =
    status === 429 ? 'rate_limit_error' : status >= 500 ? 'api_error' : 'invalid_request_error';
  res.writeHead(status, {
    'content-type': 'application/json',
    'request-id': `req_${randomUUID()}`,
  });
  res.end(JSON.stringify({ type: 'error', error: { type, message } }));
}

async function answerMessages(res: ServerResponse, request: RecordedRequest, reply: FakeReply) {
  if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
  if (reply.waitFor) await reply.waitFor;
  if (reply.onArrival) await reply.onArrival();
  if (reply.hang) return;
  if (reply.status) {
    sendError(res, reply.status, 'scripted upstream error');
    return;
  }
  const model = String(request.body?.model ?? 'claude-fake');
  const id = `msg_${randomUUID().replaceAll('-', '')}`;
  const requestId = `req_${randomUUID().replaceAll('-', '')}`;
  if (request.body?.stream !== true) {
    res.writeHead(200, { 'content-type': 'application/json', 'request-id': requestId });
    res.end(
      JSON.stringify({
        id,
        type: 'message',
        role: 'assistant',
        model,
        content: reply.content,
        stop_reason: reply.stop_reason ?? 'end_turn',
        stop_sequence: null,
        usage: reply.usage ?? defaultUsage,
      }),
    );
    return;
  }
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    'request-id': requestId,
  });
  const events = streamEvents(reply, model, id);
  if (reply.whole) {
    res.end(events.map(([event, data]) => sseText(event, data)).join(''));
    return;
  }
  for (const [index, [event, data]] of events.entries()) {
    if (reply.pauseAt?.events === index) await reply.pauseAt.until;
    if (reply.breakAfterEvents !== undefined && index >= reply.breakAfterEvents) {
      res.destroy();
      return;
    }
    if (reply.errorAfterEvents !== undefined && index >= reply.errorAfterEvents) {
      sse(res, 'error', {
        type: 'error',
        error: { type: 'overloaded_error', message: 'Overloaded' },
      });
      res.end();
      return;
    }
    sse(res, event, data);
  }
  res.end();
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export async function startFakeAnthropic(script: FakeScript = agentScript([])) {
  const requests: RecordedRequest[] = [];
  let current = script;
  let messagesIndex = 0;
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
      if (req.method === 'POST' && path === '/v1/messages/count_tokens') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ input_tokens: Math.ceil(raw.length / 4) }));
        return;
      }
      if (req.method === 'POST' && path === '/v1/messages') {
        await answerMessages(res, recorded, current(recorded, messagesIndex++));
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
    /** The recorded `POST /v1/messages` requests. */
    messages: () => requests.filter((r) => r.method === 'POST' && r.path === '/v1/messages'),
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

export type FakeAnthropic = Awaited<ReturnType<typeof startFakeAnthropic>>;
