/**
 * The model proxy's share of `npm run bench`: time to the first byte of a streamed answer from a
 * stub upstream, directly and through the gate, interleaved in the same run so load affects both;
 * for the Anthropic endpoint and the OpenAI one (Chat Completions).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { createDemoRun, type DemoWorkspace } from '../seed.js';
import {
  countingStatements,
  statementsSinceReset,
  type StatementFigures,
} from './pg-statements.js';

const chatChunk = (delta: unknown, finish: string | null) => ({
  id: 'chatcmpl-bench',
  object: 'chat.completion.chunk',
  choices: [{ index: 0, delta, finish_reason: finish }],
});
/** A Chat Completions stream, its usage chunk last (the gate asks for it). */
const chatEvents = [
  chatChunk({ role: 'assistant', content: 'ok' }, null),
  chatChunk({}, 'stop'),
  { ...chatChunk({}, null), choices: [], usage: { prompt_tokens: 10, completion_tokens: 2 } },
];

/** Answers every request with a short, fixed event stream at once, in its API's shape. */
async function startStubUpstream() {
  const events = [
    [
      'message_start',
      {
        type: 'message_start',
        message: { id: 'msg_bench', usage: { input_tokens: 10, output_tokens: 1 } },
      },
    ],
    [
      'content_block_start',
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
    ],
    [
      'content_block_delta',
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'ok' } },
    ],
    ['content_block_stop', { type: 'content_block_stop', index: 0 }],
    [
      'message_delta',
      { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 2 } },
    ],
    ['message_stop', { type: 'message_stop' }],
  ] as const;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'request-id': 'req_bench' });
      if (req.url === '/v1/chat/completions') {
        for (const data of chatEvents) res.write(`data: ${JSON.stringify(data)}\n\n`);
        res.end('data: [DONE]\n\n');
        return;
      }
      for (const [event, data] of events)
        res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}

/** Milliseconds to the first chunk of the answer's body; the rest is read and dropped. */
async function timeToFirstByte(url: string, apiKey: string, body: string): Promise<number> {
  const started = performance.now();
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${apiKey}`,
      'anthropic-version': '2023-06-01',
    },
    body,
  });
  if (!response.body || response.status !== 200)
    throw new Error(`status ${response.status}: ${await response.text()}`);
  const reader = response.body.getReader();
  await reader.read();
  const elapsed = performance.now() - started;
  while (!(await reader.read()).done) {
    // drain
  }
  return elapsed;
}

const apis = {
  anthropic: {
    upstreamPath: '/v1/messages',
    gatePath: '/anthropic/v1/messages',
    body: { model: 'claude-haiku-4-5', max_tokens: 64 },
  },
  openai: {
    upstreamPath: '/v1/chat/completions',
    gatePath: '/openai/v1/chat/completions',
    body: { model: 'gpt-4o-mini', max_completion_tokens: 64 },
  },
} as const;

export type ModelApi = keyof typeof apis;

export interface ModelProxyFigures {
  direct: number[];
  proxied: number[];
  /**
   * What PostgreSQL ran over the measured rounds (the direct requests run none), by statement,
   * or why it was not counted.
   */
  statements: Map<string, StatementFigures> | string;
}

/** One API's endpoint through the gate, with a run of its own on a provider at the stub. */
interface Endpoint {
  api: ModelApi;
  direct: string;
  proxied: string;
  token: string;
  body: string;
}

/** Rounds of every endpoint in turn before any is measured. */
const warmRounds = 100;

/**
 * Time to first byte, direct and through the gate's endpoint for each of `list`, `rounds`
 * requests each; PostgreSQL's statements over each endpoint's measured rounds, counted by the
 * server. Every endpoint is warmed before the first is measured: the endpoints share the gate's
 * code, its pool's connections and their plans, so an endpoint measured first on a fresh stack
 * would otherwise pay for what the next one finds ready.
 */
export async function benchModelProxy(
  apiUrl: string,
  operatorKey: string,
  demo: DemoWorkspace,
  databaseUrl: string,
  list: readonly ModelApi[],
  rounds = 200,
): Promise<Map<ModelApi, ModelProxyFigures>> {
  const stub = await startStubUpstream();
  const db = new pg.Client({ connectionString: databaseUrl });
  db.on('error', () => undefined);
  try {
    await db.connect();
    const endpoints: Endpoint[] = [];
    for (const api of list)
      endpoints.push(await endpointOf(stub.url, apiUrl, operatorKey, demo, api));
    for (let i = 0; i < warmRounds; i += 1)
      for (const endpoint of endpoints) await exchangeBoth(endpoint);
    const measured = new Map<ModelApi, ModelProxyFigures>();
    for (const endpoint of endpoints)
      measured.set(endpoint.api, await measure(endpoint, db, rounds));
    return measured;
  } finally {
    await db.end().catch(() => undefined);
    await stub.close();
  }
}

async function endpointOf(
  stubUrl: string,
  apiUrl: string,
  operatorKey: string,
  demo: DemoWorkspace,
  api: ModelApi,
): Promise<Endpoint> {
  const shape = apis[api];
  const provider = await fetch(`${apiUrl}/v1/model-providers`, {
    method: 'POST',
    headers: { authorization: `Bearer ${operatorKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      workspace: demo.workspace,
      name: `bench-${api}`,
      kind: api,
      base_url: stubUrl,
      credential: { type: 'api_key', key: 'sk-bench' },
    }),
  }).then((r) => r.json() as Promise<{ id: string }>);
  const run = await createDemoRun(apiUrl, operatorKey, demo, {
    model_provider: provider.id,
    budget: { max_tokens: 1_000_000_000 },
  });
  return {
    api,
    direct: `${stubUrl}${shape.upstreamPath}`,
    proxied: `${apiUrl}${shape.gatePath}`,
    token: run.session_token,
    body: JSON.stringify({
      ...shape.body,
      stream: true,
      messages: [{ role: 'user', content: 'Say ok.' }],
    }),
  };
}

/** One request to the stub directly and one through the gate: their times to first byte. */
async function exchangeBoth(endpoint: Endpoint): Promise<[number, number]> {
  const direct = await timeToFirstByte(endpoint.direct, 'sk-bench', endpoint.body);
  const proxied = await timeToFirstByte(endpoint.proxied, endpoint.token, endpoint.body);
  return [direct, proxied];
}

async function measure(
  endpoint: Endpoint,
  db: pg.Client,
  rounds: number,
): Promise<ModelProxyFigures> {
  const notCounted = await countingStatements(db);
  const direct: number[] = [];
  const proxied: number[] = [];
  for (let i = 0; i < rounds; i += 1) {
    const [d, p] = await exchangeBoth(endpoint);
    direct.push(d);
    proxied.push(p);
  }
  return { direct, proxied, statements: notCounted ?? (await statementsSinceReset(db)) };
}
