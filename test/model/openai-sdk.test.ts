import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type OpenAI from 'openai';
import { afterAll, beforeAll, describe, test } from 'vitest';
import {
  defaultMaxOutputTokens,
  parseOpenAIRequest,
} from '../../src/domain/budget/openai-request.js';
import { budgetOf, eventsOf, reservationsOf } from '../budget/support.js';
import { say, startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai.js';
import { useHarness } from '../support/harness.js';
import { createModelRun } from './support.js';
import {
  chatRequest,
  createOpenAIProvider,
  openaiClient,
  responsesRequest,
} from './openai-support.js';

const h = useHarness();
let fake: FakeOpenAI;

beforeAll(async () => {
  fake = await startFakeOpenAI();
});
afterAll(async () => {
  await fake.close();
});

const usage = { input_tokens: 120, output_tokens: 45, cached_tokens: 30 };
const each = usage.input_tokens + usage.output_tokens;

/** What every request forwarded carries: the provider's key, never the session token. */
function assertForwardedWithProviderKey(from: number, providerKey: string, sessionToken: string) {
  const seen = fake.calls().slice(from);
  for (const request of seen) {
    assert.equal(request.headers.authorization, `Bearer ${providerKey}`);
    const everything = JSON.stringify(request.headers) + request.raw.toString('utf8');
    assert.ok(!everything.includes(sessionToken), 'the session token reached the upstream');
  }
  return seen;
}

async function assertSettledAsReported(
  run: { run_id: string; session_id: string },
  requests: number,
) {
  assert.deepEqual(await budgetOf(h.db, run.run_id), {
    max_tokens: 1_000_000,
    held_tokens: 0,
    used_tokens: requests * each,
  });
  const reconciled = await eventsOf(h.db, run.session_id, 'model.reconciled');
  assert.equal(reconciled.length, requests);
  for (const event of reconciled) {
    assert.equal(event.data.via, 'proxy');
    assert.equal(event.data.outcome, 'completed');
    assert.equal(event.data.upstream_status, 200);
    assert.match(String(event.data.upstream_request_id), /^req_/);
    assert.equal(event.data.input_tokens, usage.input_tokens);
    assert.equal(event.data.cache_read_input_tokens, usage.cached_tokens);
    assert.equal(event.data.used_tokens, each);
  }
}

describe('the official openai client through the gate, the session token as its API key', () => {
  test('Chat Completions, JSON and streamed: answered as the provider answered, the upstream sees the provider key, the stream is made to report usage, and the budget moves by exactly the reported usage', async () => {
    const provider = await createOpenAIProvider(h.api, h.seed, fake.url);
    assert.equal(provider.kind, 'openai');
    const run = await createModelRun(h.api, h.seed, provider.id, 1_000_000);
    const canary = `canary-${randomUUID()}`;
    fake.setScript(() => ({ ...say(`hello ${canary}`), usage }));
    const client = openaiClient(h.api, run.session_token);
    const before = fake.calls().length;

    const answer = await client.chat.completions.create(
      chatRequest({ max_completion_tokens: 200 }) as never,
    );
    assert.equal(answer.choices[0]?.message.content, `hello ${canary}`);
    assert.equal(answer.usage?.prompt_tokens, usage.input_tokens);

    const stream = await client.chat.completions.create({
      ...chatRequest(),
      stream: true,
    } as never);
    let streamed = '';
    for await (const chunk of stream as unknown as AsyncIterable<OpenAI.ChatCompletionChunk>)
      streamed += chunk.choices[0]?.delta.content ?? '';
    assert.equal(streamed, `hello ${canary}`);

    const [json, sse] = assertForwardedWithProviderKey(before, provider.key, run.session_token);
    assert.equal(json?.body.max_completion_tokens, 200);
    // The client set neither a limit nor usage: the gate wrote both in.
    assert.equal(sse!.body.max_completion_tokens, defaultMaxOutputTokens);
    assert.deepEqual(sse!.body.stream_options, { include_usage: true });
    // The standard tier, whatever the project's default is: the tier the table prices.
    assert.equal(json.body.service_tier, 'default');

    const rows = await reservationsOf(h.db, run.session_id);
    assert.deepEqual(
      rows.map((r) => [r.status, Number(r.max_output_tokens)]).sort((a, b) => +a[1]! - +b[1]!),
      [
        ['reconciled', 200],
        ['reconciled', defaultMaxOutputTokens],
      ],
    );
    await assertSettledAsReported(run, 2);
    const ledger = JSON.stringify(await eventsOf(h.db, run.session_id));
    assert.ok(!ledger.includes(canary), 'a prompt or an answer reached the ledger');
    assert.ok(!ledger.includes(provider.key), 'the provider key reached the ledger');
  });

  test('Responses, JSON and streamed: answered as the provider answered, its usage read from response.completed, the budget moves by exactly the reported usage', async () => {
    const provider = await createOpenAIProvider(h.api, h.seed, fake.url);
    const run = await createModelRun(h.api, h.seed, provider.id, 1_000_000);
    fake.setScript(() => ({ ...say('hello from responses'), usage }));
    const client = openaiClient(h.api, run.session_token);
    const before = fake.calls().length;

    const answer = await client.responses.create(
      responsesRequest({ instructions: 'Be brief.', max_output_tokens: 300 }) as never,
    );
    assert.equal((answer as { output_text: string }).output_text, 'hello from responses');
    const stream = client.responses.stream(responsesRequest() as never);
    const final = await stream.finalResponse();
    assert.equal(final.output_text, 'hello from responses');
    assert.equal(final.usage?.output_tokens, usage.output_tokens);

    const [json, sse] = assertForwardedWithProviderKey(before, provider.key, run.session_token);
    assert.equal(json?.body.max_output_tokens, 300);
    assert.equal(sse!.body.max_output_tokens, defaultMaxOutputTokens);
    assert.equal(sse!.body.stream, true);
    await assertSettledAsReported(run, 2);
  });

  test('the request booked is the request forwarded: its input bound computed from the body sent upstream, plus its output limit', async () => {
    const provider = await createOpenAIProvider(h.api, h.seed, fake.url);
    const run = await createModelRun(h.api, h.seed, provider.id, 1_000_000);
    fake.setScript(() => say('ok'));
    const client = openaiClient(h.api, run.session_token);
    const before = fake.calls().length;
    await client.chat.completions.create(
      chatRequest({
        max_tokens: 77,
        messages: [
          { role: 'system', content: 'You review code.' },
          { role: 'user', content: 'x\u00e9y '.repeat(500) },
        ],
        tools: [
          {
            type: 'function',
            function: {
              name: 'read',
              description: 'Reads a file.',
              parameters: { type: 'object', properties: { path: { type: 'string' } } },
            },
          },
        ],
      }) as never,
    );
    const [forwarded] = fake.calls().slice(before);
    const parsed = parseOpenAIRequest(forwarded!.raw, 'chat_completions');
    assert.ok(parsed.ok);
    assert.equal(forwarded!.body.max_tokens, 77);
    assert.equal(forwarded!.body.max_completion_tokens, undefined);
    const [reservation] = await reservationsOf(h.db, run.session_id);
    assert.equal(Number(reservation.max_output_tokens), 77);
    assert.equal(Number(reservation.input_bound_tokens), parsed.request.input.tokens);
    // The model's tokenizer counts fewer than the bytes a model of unknown tokenizer counts.
    const unknown = parseOpenAIRequest(
      Buffer.from(JSON.stringify({ ...forwarded!.body, model: 'unknown-model' })),
      'chat_completions',
    );
    assert.ok(unknown.ok);
    assert.ok(
      parsed.request.input.tokens < unknown.request.input.tokens - 1_000,
      `bound ${parsed.request.input.tokens}, by bytes ${unknown.request.input.tokens}`,
    );
  });
});

describe('reasoning items sent back', () => {
  test('a reasoning item the gate saw produced is bounded by the output of its response; one it never saw books the largest context window, which no run of 1M fits', async () => {
    const provider = await createOpenAIProvider(h.api, h.seed, fake.url);
    const run = await createModelRun(h.api, h.seed, provider.id, 1_000_000);
    const client = openaiClient(h.api, run.session_token);
    const encrypted = `enc-${randomUUID()}`;
    fake.setScript(() => ({
      output: [
        { type: 'reasoning', id: 'rs_seen', encrypted_content: encrypted },
        { type: 'text', text: 'thought about it' },
      ],
      usage: { input_tokens: 50, output_tokens: 700 },
    }));
    const first = await client.responses.create(
      responsesRequest({ include: ['reasoning.encrypted_content'], store: false }) as never,
    );
    const turn = (reasoning: Record<string, unknown>) =>
      responsesRequest({
        max_output_tokens: 100,
        input: [
          { role: 'user', content: 'Say hello.' },
          { type: 'reasoning', summary: [], ...reasoning },
          { role: 'assistant', content: 'thought about it' },
          { role: 'user', content: 'And now?' },
        ],
      });
    fake.setScript(() => say('ok'));
    assert.equal((first as { output_text: string }).output_text, 'thought about it');
    await client.responses.create(turn({ id: 'rs_seen', encrypted_content: encrypted }) as never);
    const rows = await reservationsOf(h.db, run.session_id);
    const second = rows.find((r) => Number(r.max_output_tokens) === 100);
    assert.ok(second);
    const bound = Number(second.input_bound_tokens);
    assert.ok(bound >= 700 && bound < 5_000, `bound ${bound}`);

    const unseen = await client.responses
      .create(turn({ id: 'rs_other', encrypted_content: 'enc-forged' }) as never)
      .then(
        () => undefined,
        (err: unknown) => err as { status: number; message: string },
      );
    assert.equal(unseen?.status, 400);
    assert.match(unseen.message, /did not see produced/);
  });
});
