import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { Tiktoken } from 'js-tiktoken/lite';
import cl100kBase from 'js-tiktoken/ranks/cl100k_base';
import o200kBase from 'js-tiktoken/ranks/o200k_base';
import { largestImageTokens, pixelsPerToken } from '../../src/domain/budget/image-tokens.js';
import {
  contextWindowCeiling,
  inputTokenBound,
  inputTokenBoundOf,
  tokenOverhead,
} from '../../src/domain/budget/input-token-bound.js';
import { modelInputSchema } from '../../src/domain/budget/model-input-schema.js';
import { thinkingDigest, thinkingDigests } from '../../src/domain/budget/thinking-origins.js';
import { imageHeaders } from './image-headers.js';
import { randomInt, seededRandom } from './support.js';

const tokenizers = [new Tiktoken(cl100kBase), new Tiktoken(o200kBase)];
const count = (text: string) => Math.max(...tokenizers.map((t) => t.encode(text, [], []).length));

const texts = [
  'plain ASCII prose, with punctuation; and "quotes".',
  'Größenordnung, naïve café, Łódź — Съешь же ещё этих мягких французских булок',
  '漢字かな交じり文、中文字符、한국어 문장입니다。 𠜎𠜱𠝹',
  'emoji 👩‍👩‍👧‍👦 👍🏽 🏳️‍🌈 🇯🇵 and combining e\u0301 a\u0308 Z\u0351\u0348\u0306',
  'RTL: שלום עולם — مرحبا بالعالم \u202Eevil\u202C, zero width a\u200Bb\uFEFFc',
  'function f<T>(x: T): T {\n\treturn x ?? (() => { throw new Error("none"); })();\n}\n',
  '<|endoftext|><|im_start|>system<|im_end|> special-token look-alikes',
  'a'.repeat(500),
];

const user = (content: unknown[]) => ({ messages: [{ role: 'user', content }] });
const bound = (raw: unknown, origins?: Parameters<typeof inputTokenBound>[1]) =>
  inputTokenBoundOf(modelInputSchema.parse(raw), origins);

describe('documents in plain text are bounded by their bytes', () => {
  test('a text document with a title and context: the bound holds against real BPE tokenizers, as a document is rendered', () => {
    for (const data of texts) {
      for (const title of texts.slice(0, 3)) {
        const raw = user([
          {
            type: 'document',
            source: { type: 'text', media_type: 'text/plain', data },
            title,
            context: `about ${title}`,
          },
        ]);
        const rendered = `<document><title>${title}</title><context>about ${title}</context><source>${data}</source></document>`;
        const { tokens, unbounded } = bound(raw);
        assert.deepEqual(unbounded, []);
        assert.ok(
          count(rendered) <= tokens,
          `${count(rendered)} > ${tokens} for ${data.slice(0, 20)}`,
        );
      }
    }
  });

  test('a document of content blocks, also inside a tool result, is its texts', () => {
    for (const data of texts) {
      const document = {
        type: 'document',
        source: {
          type: 'content',
          content: [
            { type: 'text', text: data },
            { type: 'text', text: data },
          ],
        },
      };
      const rendered = `<document><text>${data}</text><text>${data}</text></document>`;
      for (const raw of [
        user([document]),
        user([{ type: 'tool_result', tool_use_id: 't1', content: [document] }]),
      ]) {
        const { tokens, unbounded } = bound(raw);
        assert.deepEqual(unbounded, []);
        assert.ok(count(rendered) <= tokens);
      }
    }
  });

  test('a PDF, a document by URL or file, and citations have no bound of their own: the request counts the context window, naming why', () => {
    const sources = [
      { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0xLjQK' },
      { type: 'url', url: 'https://example.com/a.pdf' },
      { type: 'file', file_id: 'file_123' },
    ];
    for (const source of sources) {
      const { tokens, unbounded } = bound(user([{ type: 'document', source }]));
      assert.equal(tokens, contextWindowCeiling);
      assert.equal(unbounded.length, 1);
      assert.match(unbounded[0]!, /^messages\[0\]\.content\[0\]: a /);
    }
    const cited = bound(
      user([
        {
          type: 'document',
          source: { type: 'text', media_type: 'text/plain', data: 'x' },
          citations: { enabled: true },
        },
      ]),
    );
    assert.equal(cited.tokens, contextWindowCeiling);
  });
});

describe('images are bounded by their pixels, as the provider documents (width × height / 750)', () => {
  test('PNG, JPEG, GIF and WebP of seeded random sizes: the bound is the documented count of the image read from its own header', () => {
    const random = seededRandom(750);
    for (let i = 0; i < 200; i += 1) {
      const width = randomInt(random, 1, 8000);
      const height = randomInt(random, 1, 8000);
      for (const [mediaType, header] of Object.entries(imageHeaders)) {
        const data = header(width, height).toString('base64');
        const image = { type: 'image', source: { type: 'base64', media_type: mediaType, data } };
        const alone = inputTokenBound(modelInputSchema.parse(user([image])));
        const none = inputTokenBound(modelInputSchema.parse(user([{ type: 'text', text: '' }])));
        const documented = Math.ceil((width * height) / pixelsPerToken);
        assert.equal(alone - none, documented, `${mediaType} ${width}x${height}`);
      }
    }
  });

  test('an image whose size cannot be read here (by URL, by file id, an unreadable header) counts as the largest image the API accepts', () => {
    const sources = [
      { type: 'url', url: 'https://example.com/cat.png' },
      { type: 'file', file_id: 'file_abc' },
      {
        type: 'base64',
        media_type: 'image/png',
        data: Buffer.from('not an image').toString('base64'),
      },
    ];
    const none = inputTokenBound(modelInputSchema.parse(user([{ type: 'text', text: '' }])));
    for (const source of sources) {
      const alone = inputTokenBound(modelInputSchema.parse(user([{ type: 'image', source }])));
      assert.equal(alone - none, largestImageTokens);
      assert.equal(largestImageTokens, Math.ceil((8000 * 8000) / 750));
    }
  });

  test('images inside tool results count the same', () => {
    const data = imageHeaders['image/png'](1092, 1092).toString('base64');
    const image = { type: 'image', source: { type: 'base64', media_type: 'image/png', data } };
    const direct = bound(user([image])).tokens;
    const inResult = bound(
      user([{ type: 'tool_result', tool_use_id: 'x', content: [image] }]),
    ).tokens;
    assert.equal(inResult - direct, tokenOverhead.toolUse + tokenOverhead.block + 1);
    assert.equal(Math.ceil((1092 * 1092) / 750), 1590);
  });
});

describe('thinking blocks are bounded by the response that produced them', () => {
  const thinking = (text: string, signature: string) => ({
    type: 'thinking',
    thinking: text,
    signature,
  });
  const assistant = (content: unknown[]) => ({
    messages: [
      { role: 'user', content: 'q' },
      { role: 'assistant', content },
      { role: 'user', content: 'go on' },
    ],
  });

  test("a block the gate saw produced counts that response's output tokens once, plus its visible text, which holds against real tokenizers", () => {
    for (const text of texts) {
      const raw = assistant([
        thinking(text, 'sig-a'),
        { type: 'redacted_thinking', data: 'enc-b' },
      ]);
      const input = modelInputSchema.parse(raw);
      const origins = new Map([
        [thinkingDigest('sig-a'), { response: 'r1', outputTokens: 900 }],
        [thinkingDigest('enc-b'), { response: 'r1', outputTokens: 900 }],
      ]);
      assert.deepEqual(thinkingDigests(input).sort(), [...origins.keys()].sort());
      const withOrigins = inputTokenBoundOf(input, origins);
      assert.deepEqual(withOrigins.unbounded, []);
      const without = inputTokenBoundOf(
        modelInputSchema.parse(assistant([{ type: 'text', text }])),
      );
      // One response, counted once; two block overheads in place of one text block's.
      assert.equal(withOrigins.tokens - without.tokens, 900 + tokenOverhead.block);
      assert.ok(count(`<thinking>${text}</thinking>`) <= withOrigins.tokens - 900);
    }
  });

  test('blocks from two responses count both; a block from elsewhere makes the request count the context window', () => {
    const raw = assistant([thinking('a', 'sig-1'), thinking('b', 'sig-2')]);
    const input = modelInputSchema.parse(raw);
    const both = inputTokenBoundOf(
      input,
      new Map([
        [thinkingDigest('sig-1'), { response: 'r1', outputTokens: 100 }],
        [thinkingDigest('sig-2'), { response: 'r2', outputTokens: 250 }],
      ]),
    );
    const one = inputTokenBoundOf(
      input,
      new Map([
        [thinkingDigest('sig-1'), { response: 'r1', outputTokens: 100 }],
        [thinkingDigest('sig-2'), { response: 'r1', outputTokens: 100 }],
      ]),
    );
    assert.equal(both.tokens - one.tokens, 250);
    const stranger = inputTokenBoundOf(input, new Map());
    assert.equal(stranger.tokens, contextWindowCeiling);
    assert.deepEqual(stranger.unbounded, [
      'messages[1].content[0]: a thinking block this gate did not see produced',
      'messages[1].content[1]: a thinking block this gate did not see produced',
    ]);
  });
});

describe('a computed bound is never cut to the context-window ceiling', () => {
  test('a text that could take more than a million tokens books what it could take, past the ceiling', () => {
    // A provider behind a gateway may take more than any window the gate knows: the bound stays
    // what the text could cost, and a run too small for it refuses it.
    const huge = bound(user([{ type: 'text', text: 'x'.repeat(2_000_000) }]));
    assert.ok(huge.tokens > contextWindowCeiling, String(huge.tokens));
    assert.deepEqual(huge.unbounded, []);
  });
});
