import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { Tiktoken } from 'js-tiktoken/lite';
import cl100kBase from 'js-tiktoken/ranks/cl100k_base';
import o200kBase from 'js-tiktoken/ranks/o200k_base';
import {
  contextWindowCeiling,
  inputTokenBound,
  inputTokenBoundOf,
} from '../../../src/domain/budget/input-token-bound.js';
import { jsonTextBound } from '../../../src/domain/budget/json-text-bound.js';
import {
  modelInputSchema,
  type ModelInput,
} from '../../../src/domain/budget/model-input-schema.js';
import { thinkingDigest } from '../../../src/domain/budget/thinking-origins.js';
import { canonicalJson } from '../../../src/domain/ledger/digest.js';
import { modelInput, randomInt, seededRandom } from '../../budget/support.js';

const encodings = [
  { name: 'cl100k_base', tokenizer: new Tiktoken(cl100kBase) },
  { name: 'o200k_base', tokenizer: new Tiktoken(o200kBase) },
];

/** Special-token text is counted as the plain text it is in a request. */
function tokens(tokenizer: Tiktoken, text: string): number {
  return tokenizer.encode(text, [], []).length;
}

const corpus = [
  'plain ASCII prose, with punctuation; and "quotes".',
  'Größenordnung, naïve café, Łódź, Ærø, İstanbul',
  'Съешь же ещё этих мягких французских булок, да выпей чаю.',
  '漢字かな交じり文、中文字符、한국어 문장입니다。',
  '𠜎𠜱𠝹𠱓𠱸𠲖𠳏 (astral CJK, four UTF-8 bytes each)',
  'emoji 👩‍👩‍👧‍👦 👍🏽 🏳️‍🌈 🇯🇵 🧑🏿‍🚀 😀😃😄😁',
  'combining: e\u0301 a\u0308 o\u0302\u0323 Z\u0351\u0348\u0306\u036b\u0334a\u0315\u0317\u0359l\u0340g\u0343o\u0352',
  'RTL: שלום עולם — مرحبا بالعالم — \u202Eevil\u202C ‏mark‏',
  'zero width: a\u200Bb\u200Cc\u200Dd\uFEFFe, and controls \u0001\u0002\u001F\u007F',
  'function f<T>(x: T): T {\n\treturn x ?? (() => { throw new Error("none"); })();\n}\n',
  '    indented\n\n\n\t\t\ttabs   and   spaces   \r\n',
  '{"key": [1, 2.5, -3e-7, true, null], "nested": {"a": "b"}}',
  '<|endoftext|><|im_start|>system<|im_end|> special-token look-alikes',
  '!!!???...;;;:::,,,///|||\\\\\\~~~```',
  'a'.repeat(300),
  '\u{10FFFF}\u{E0001}\u{1F9D1}\u200D\u{1F52C}',
];

/** The one rendering a JSON value may take in the prompt that makes it longest: Python's. */
function pythonJson(value: unknown): string {
  if (typeof value === 'string') {
    return JSON.stringify(value).replace(
      /[^\x20-\x7e]/g,
      (unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`,
    );
  }
  if (Array.isArray(value)) return `[${value.map(pythonJson).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value)
      .map(([k, v]) => `${pythonJson(k)}: ${pythonJson(v)}`)
      .join(', ')}}`;
  }
  return JSON.stringify(value);
}

const renderings = [
  { name: 'canonical JSON', json: canonicalJson },
  { name: 'JSON.stringify', json: (v: unknown) => JSON.stringify(v) },
  { name: 'Python json.dumps', json: pythonJson },
];

/**
 * A plausible prompt the model would see: chat markup around every message and block (written
 * as plain text, which takes more tokens than real special tokens), texts verbatim, structured
 * parts as JSON.
 */
function renderPrompt(input: ModelInput, json: (value: unknown) => string): string {
  const parts: string[] = [];
  const texts = (blocks: readonly { text: string }[]) =>
    blocks.map((b) => `<text>${b.text}</text>`).join('');
  if (input.system) parts.push(`<|im_start|>system\n${texts(input.system)}<|im_end|>\n`);
  if (input.tools?.length) {
    parts.push(`<tools>${input.tools.map((t) => `<tool>${json(t)}</tool>`).join('')}</tools>`);
  }
  for (const message of input.messages) {
    const body = message.content
      .map((block) => {
        if (block.type === 'text') return `<text>${block.text}</text>`;
        if (block.type === 'tool_use') {
          return `<tool_use id="${block.id}" name="${block.name}">${json(block.input)}</tool_use>`;
        }
        if (block.type === 'tool_result') {
          const content = (block.content ?? []) as { text: string }[];
          return `<tool_result id="${block.tool_use_id}">${texts(content)}</tool_result>`;
        }
        throw new Error(`no rendering for ${block.type}`);
      })
      .join('');
    parts.push(`<|im_start|>${message.role}\n${body}<|im_end|>\n`);
  }
  return parts.join('');
}

function assertBoundHolds(raw: unknown, label: string) {
  const input = modelInputSchema.parse(raw);
  const bound = inputTokenBound(input);
  for (const { name, json } of renderings) {
    const prompt = renderPrompt(input, json);
    for (const encoding of encodings) {
      const count = tokens(encoding.tokenizer, prompt);
      assert.ok(
        count <= bound,
        `${label}, ${name}, ${encoding.name}: ${count} tokens > bound ${bound}`,
      );
    }
  }
}

function randomString(random: () => number, length: number): string {
  // Ranges chosen to stress tokenizers: controls, Latin, combining marks, Hebrew and Arabic,
  // CJK, surrogate-pair emoji and supplementary planes.
  const ranges: [number, number][] = [
    [0x00, 0x1f],
    [0x20, 0x7e],
    [0xa0, 0x24f],
    [0x300, 0x36f],
    [0x590, 0x6ff],
    [0x3040, 0x30ff],
    [0x4e00, 0x9fff],
    [0xac00, 0xd7a3],
    [0x1f300, 0x1faff],
    [0x20000, 0x2a6df],
  ];
  let text = '';
  while (text.length < length) {
    const [low, high] = ranges[randomInt(random, 0, ranges.length - 1)]!;
    text += String.fromCodePoint(randomInt(random, low, high));
  }
  return text;
}

function randomJson(random: () => number, depth: number): unknown {
  const pick = randomInt(random, 0, depth > 3 ? 3 : 5);
  if (pick === 0) return randomString(random, randomInt(random, 0, 30));
  if (pick === 1) return (random() - 0.5) * 10 ** randomInt(random, -8, 25);
  if (pick === 2) return [true, false, null, 0, -0, 1e21, 123456789][randomInt(random, 0, 6)];
  if (pick === 3) return randomInt(random, -1000, 1000);
  if (pick === 4) {
    return Array.from({ length: randomInt(random, 0, 6) }, () => randomJson(random, depth + 1));
  }
  return Object.fromEntries(
    Array.from({ length: randomInt(random, 0, 6) }, () => [
      randomString(random, randomInt(random, 1, 8)),
      randomJson(random, depth + 1),
    ]),
  );
}

describe('the input bound is a genuine upper bound', () => {
  test('no text in the corpus takes more tokens than it has UTF-8 bytes, in either encoding', () => {
    for (const text of corpus) {
      for (const { name, tokenizer } of encodings) {
        const count = tokens(tokenizer, text);
        assert.ok(count <= Buffer.byteLength(text), `${name}: ${JSON.stringify(text)}`);
      }
    }
  });

  test('a JSON value takes no more tokens than its bound, however it is serialised', () => {
    const values = [
      ...corpus.map((text) => ({ [text]: text, n: [1, -0, 2.5e-7, 1e300, 2 ** 60] })),
      { deep: [[[[{ a: [null, true, false, 'x'] }]]]] },
    ];
    for (const value of values) {
      for (const { name, json } of renderings) {
        for (const encoding of encodings) {
          const count = tokens(encoding.tokenizer, json(value));
          assert.ok(count <= jsonTextBound(value), `${name}, ${encoding.name}`);
        }
      }
    }
  });

  test('every corpus text in every part of a request stays within the bound', () => {
    for (const [i, text] of corpus.entries()) {
      assertBoundHolds(
        {
          system: [{ type: 'text', text }],
          messages: [
            { role: 'user', content: text },
            {
              role: 'assistant',
              content: [
                { type: 'text', text },
                {
                  type: 'tool_use',
                  id: 'toolu_1',
                  name: 'Write',
                  input: { path: text, body: text },
                },
              ],
            },
            {
              role: 'user',
              content: [
                { type: 'tool_result', tool_use_id: 'toolu_1', content: text, is_error: true },
                { type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text }] },
              ],
            },
          ],
          tools: [
            {
              name: 'Write',
              description: text,
              input_schema: { type: 'object', properties: { [text]: { description: text } } },
            },
          ],
        },
        `corpus[${i}]`,
      );
    }
  });

  test('random requests of random text and JSON stay within the bound (seeded)', () => {
    const random = seededRandom(20261130);
    for (let round = 0; round < 60; round += 1) {
      const messages = Array.from({ length: randomInt(random, 1, 6) }, (_, m) => ({
        role: m % 2 === 0 ? 'user' : 'assistant',
        content: [
          { type: 'text', text: randomString(random, randomInt(random, 0, 400)) },
          {
            type: 'tool_use',
            id: `toolu_${m}`,
            name: 'Tool',
            input: { value: randomJson(random, 0) },
          },
          {
            type: 'tool_result',
            tool_use_id: `toolu_${m}`,
            content: randomString(random, randomInt(random, 0, 200)),
          },
        ],
      }));
      assertBoundHolds(
        { system: randomString(random, randomInt(random, 0, 200)), messages },
        `round ${round}`,
      );
    }
  });

  test('the sample request books what its parts add up to, and more text books more', () => {
    const small = inputTokenBound(modelInputSchema.parse(modelInput('a')));
    const large = inputTokenBound(modelInputSchema.parse(modelInput('a'.repeat(101))));
    assert.equal(large - small, 100);
  });
});

describe('what cannot be bounded is refused, naming the path', () => {
  const refusals: [string, unknown, string][] = [
    [
      'a search result',
      {
        messages: [
          {
            role: 'user',
            content: [{ type: 'search_result', source: 's', title: 't', content: [] }],
          },
        ],
      },
      'messages.0.content.0.type',
    ],
    [
      'a search result inside a tool result',
      {
        messages: [
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: 't', content: [{ type: 'search_result' }] },
            ],
          },
        ],
      },
      'messages.0.content.0.content.0.type',
    ],
    [
      'an image of a type the API does not take',
      {
        messages: [
          {
            role: 'user',
            content: [
              { type: 'image', source: { type: 'base64', media_type: 'image/tiff', data: 'AA==' } },
            ],
          },
        ],
      },
      'messages.0.content.0.source.media_type',
    ],
    [
      'a thinking block without its signature',
      { messages: [{ role: 'assistant', content: [{ type: 'thinking', thinking: 'x' }] }] },
      'messages.0.content.0.signature',
    ],
    [
      'a block of unknown type',
      { messages: [{ role: 'user', content: [{ type: 'hologram' }] }] },
      'messages.0.content.0.type',
    ],
    [
      'a field the bound does not count',
      { messages: [{ role: 'user', content: [{ type: 'text', text: 'x', citations: [] }] }] },
      'messages.0.content.0',
    ],
    ['a sampling parameter', { messages: [{ role: 'user', content: 'x' }], temperature: 1 }, ''],
    ['no messages', { messages: [] }, 'messages'],
    [
      'a server tool',
      { messages: [{ role: 'user', content: 'x' }], tools: [{ type: 'web_search_20250305' }] },
      'tools.0',
    ],
    [
      'tool input nested too deep',
      {
        messages: [
          {
            role: 'assistant',
            content: [
              {
                type: 'tool_use',
                id: 't',
                name: 'n',
                input: { a: JSON.parse('['.repeat(100) + ']'.repeat(100)) },
              },
            ],
          },
        ],
      },
      'messages.0.content.0.input',
    ],
  ];
  for (const [what, input, path] of refusals) {
    test(`${what} is refused at "${path}"`, () => {
      const result = modelInputSchema.safeParse(input);
      assert.equal(result.success, false);
      const paths = result.error.issues.map((issue) => issue.path.join('.'));
      assert.ok(
        paths.some((p) => p.startsWith(path)),
        JSON.stringify(paths),
      );
    });
  }
});

describe('a thinking block counts its response once, and only once sent', () => {
  const block = { type: 'redacted_thinking' as const, data: 'opaque-reasoning' };
  const origins = new Map([[thinkingDigest(block.data), { response: 'r1', outputTokens: 30_000 }]]);
  const input = (copies: number) =>
    modelInputSchema.parse({
      messages: [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: Array.from({ length: copies }, () => block) },
      ],
    });

  test("a block the gate saw produced books that response's output", () => {
    const bound = inputTokenBoundOf(input(1), origins);
    assert.deepEqual(bound.unbounded, []);
    assert.ok(bound.tokens >= 30_000 && bound.tokens < 31_000, String(bound.tokens));
  });

  test('the same block sent twice is bounded by nothing: the request books the largest context window', () => {
    const bound = inputTokenBoundOf(input(100), origins);
    assert.equal(bound.tokens, contextWindowCeiling);
    assert.match(
      bound.unbounded[0] ?? '',
      /messages\[1\]\.content\[1\]: a redacted_thinking block sent twice/,
    );
  });
});
