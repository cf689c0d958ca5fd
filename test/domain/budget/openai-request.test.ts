import assert from 'node:assert/strict';
import { contextWindowCeiling } from '../../../src/domain/budget/input-token-bound.js';
import { describe, test } from 'vitest';
import { Tiktoken } from 'js-tiktoken/lite';
import o200kBase from 'js-tiktoken/ranks/o200k_base';
import cl100kBase from 'js-tiktoken/ranks/cl100k_base';
import {
  forwardedBody,
  imageTokenCeiling,
  parseOpenAIRequest,
} from '../../../src/domain/budget/openai-request.js';
import {
  encodingOfModel,
  maxMergedPiece,
  TextTokenCounter,
} from '../../../src/domain/budget/openai-tokens.js';
import {
  ChatStreamUsageReader,
  readOpenAIJsonAnswer,
  ResponsesStreamUsageReader,
} from '../../../src/domain/budget/openai-usage.js';
import { usageToReconcile } from '../../../src/domain/budget/upstream-usage.js';

const o200k = new Tiktoken(o200kBase);
const cl100k = new Tiktoken(cl100kBase);
const texts = [
  'The quick brown fox jumps over the lazy dog.',
  'export function f(a: number): number {\n  return a * 2; // doubled\n}\n',
  'ünïcödé, 中文字符, emoji 🎉🎉 and <|endoftext|> as text',
  '    indented\n\n\n\ttabs   and   spaces   ',
  '12345678901234567890 3.14159 -42',
];

const parse = (body: unknown, endpoint: 'chat_completions' | 'responses' = 'chat_completions') => {
  const parsed = parseOpenAIRequest(Buffer.from(JSON.stringify(body)), endpoint);
  assert.ok(parsed.ok, parsed.ok ? '' : parsed.message);
  return parsed.request;
};

describe("a text is counted by the model's own tokenizer", () => {
  test('each text counts what tiktoken counts for it, o200k_base and cl100k_base by model', () => {
    for (const text of texts) {
      assert.equal(
        new TextTokenCounter('o200k_base').count(text),
        o200k.encode(text, [], []).length,
      );
      assert.equal(
        new TextTokenCounter('cl100k_base').count(text),
        cl100k.encode(text, [], []).length,
      );
    }
    assert.equal(encodingOfModel('gpt-4o-mini'), 'o200k_base');
    assert.equal(encodingOfModel('gpt-5.1-codex'), 'o200k_base');
    assert.equal(encodingOfModel('o3-mini'), 'o200k_base');
    assert.equal(encodingOfModel('ft:gpt-4.1-mini:acme::abc'), 'o200k_base');
    assert.equal(encodingOfModel('gpt-4-turbo'), 'cl100k_base');
    assert.equal(encodingOfModel('gpt-3.5-turbo'), 'cl100k_base');
    assert.equal(encodingOfModel('llama-3-70b'), undefined);
  });

  test('a model of unknown tokenizer counts bytes, which no byte-level tokenizer exceeds', () => {
    for (const text of texts) {
      const bytes = Buffer.byteLength(text, 'utf8');
      assert.equal(new TextTokenCounter(undefined).count(text), bytes);
      assert.ok(o200k.encode(text, [], []).length <= bytes);
    }
  });

  test('a hostile text (long runs without a break, which tiktoken merges in quadratic time) is counted in bounded time, never below its real count', () => {
    const hostile = [
      'a'.repeat(1_000_000),
      ('b'.repeat(maxMergedPiece) + ' ').repeat(20_000),
      Array.from(
        { length: 30_000 },
        (_, i) => `${'c'.repeat(maxMergedPiece - 6)}${String(i).padStart(5, 'x')} `,
      ).join(''),
      Array.from({ length: 200_000 }, (_, i) => String.fromCharCode(0x4e00 + (i % 2000))).join(''),
    ];
    for (const text of hostile) {
      const started = performance.now();
      const counted = new TextTokenCounter('o200k_base').count(text);
      // About a fifth of a second on a quiet machine; catastrophic only past 5x.
      assert.ok(performance.now() - started < 2_000, 'counting took too long');
      assert.ok(counted <= Buffer.byteLength(text, 'utf8'));
      // tiktoken itself on a sample that is cheap for it: the count is never below it.
      const sample = text.slice(0, 600);
      assert.ok(
        new TextTokenCounter('o200k_base').count(sample) >= o200k.encode(sample, [], []).length,
      );
    }
  });
});

describe('every member that becomes input is bounded', () => {
  const base = { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] };

  test('a bound computed from the request is never cut to the context-window ceiling', () => {
    // A model of unknown tokenizer counts bytes: 1.5 MB of text is a bound past the ceiling.
    const huge = parse({
      model: 'llama-4-scout',
      messages: [{ role: 'user', content: 'x'.repeat(1_500_000) }],
    });
    assert.ok(huge.input.tokens >= 1_500_000, String(huge.input.tokens));
    assert.ok(huge.input.tokens > contextWindowCeiling);
  });

  test('messages, tool definitions, response_format schemas, tool calls and their outputs each add to the bound', () => {
    const plain = parse(base).input.tokens;
    const big = 'word '.repeat(2_000);
    const grows: Record<string, unknown>[] = [
      { messages: [{ role: 'user', content: big }] },
      { messages: [{ role: 'system', content: big }, ...base.messages] },
      { tools: [{ type: 'function', function: { name: 'f', description: big } }] },
      {
        response_format: {
          type: 'json_schema',
          json_schema: { name: 's', schema: { description: big } },
        },
      },
      {
        messages: [
          ...base.messages,
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: big } }],
          },
          { role: 'tool', tool_call_id: 'c', content: big },
        ],
      },
    ];
    for (const extra of grows) {
      const bound = parse({ ...base, ...extra }).input.tokens;
      assert.ok(bound >= plain + 2_000, `${JSON.stringify(extra).slice(0, 60)}: ${bound}`);
    }
    const responses = parse({ model: 'gpt-4o', input: 'hi', instructions: big }, 'responses');
    assert.ok(responses.input.tokens >= 2_000);
  });

  test('an image counts the largest image any model bills, whatever its detail', () => {
    const image = parse({
      ...base,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA', detail: 'low' } },
          ],
        },
      ],
    });
    assert.ok(image.input.tokens >= imageTokenCeiling);
    assert.deepEqual(image.urlImages, []);
  });

  test('the forwarded body carries the output limit, the standard tier and, streamed, the usage report; nothing else changes', () => {
    const request = parse({ ...base, stream: true, stream_options: { include_usage: false } });
    const forwarded = JSON.parse(forwardedBody(request, 123).toString('utf8'));
    assert.deepEqual(forwarded, {
      ...base,
      stream: true,
      stream_options: { include_usage: true },
      max_completion_tokens: 123,
      service_tier: 'default',
    });
    const responses = parse({ model: 'gpt-4o', input: 'hi', max_output_tokens: 50 }, 'responses');
    assert.equal(responses.askedMaxOutput, 50);
    assert.equal(JSON.parse(forwardedBody(responses, 50).toString('utf8')).max_output_tokens, 50);
  });
});

describe('usage is read as OpenAI reports it', () => {
  test('a Chat stream: the usage chunk; cached input kept apart; a stream without one is unknown spend', () => {
    const reader = new ChatStreamUsageReader();
    assert.equal(
      reader.event('message', '{"choices":[{"delta":{"content":"hi"},"finish_reason":null}]}'),
      false,
    );
    assert.equal(
      reader.event('message', '{"choices":[{"delta":{},"finish_reason":"stop"}]}'),
      true,
    );
    reader.event(
      'message',
      '{"choices":[],"usage":{"prompt_tokens":100,"completion_tokens":20,"prompt_tokens_details":{"cached_tokens":40}}}',
    );
    reader.event('message', '[DONE]');
    assert.deepEqual(reader.report.usage, {
      input_tokens: 60,
      cache_read_input_tokens: 40,
      cache_creation_input_tokens: 0,
      output_tokens: 20,
    });
    assert.equal(reader.report.complete, true);
    const booking = { inputBoundTokens: 500, maxOutputTokens: 1_000 };
    assert.deepEqual(usageToReconcile(reader.report, 'billable', booking), {
      input: 100,
      output: 20,
    });
    const silent = new ChatStreamUsageReader();
    silent.event('message', '[DONE]');
    assert.deepEqual(usageToReconcile(silent.report, 'billable', booking), {
      input: 500,
      output: 1_000,
    });
  });

  test('a Responses stream: the usage of response.completed; a zero report is no report', () => {
    const reader = new ResponsesStreamUsageReader();
    reader.event(
      'response.completed',
      '{"type":"response.completed","response":{"usage":{"input_tokens":70,"output_tokens":9,"input_tokens_details":{"cached_tokens":0}}}}',
    );
    assert.equal(reader.report.usage.input_tokens, 70);
    assert.equal(reader.report.usage.output_tokens, 9);
    const zero = readOpenAIJsonAnswer('{"usage":{"prompt_tokens":0,"completion_tokens":0}}');
    assert.equal(zero.inputReported, false);
    assert.equal(zero.outputReported, false);
  });
});
