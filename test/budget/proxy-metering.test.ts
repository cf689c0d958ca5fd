import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import fc from 'fast-check';
import { jsonTextProblem } from '../../src/domain/budget/json-text-shape.js';
import { parseMessagesRequest } from '../../src/domain/budget/messages-request.js';
import {
  emptyReport,
  readJsonAnswer,
  SseSplitter,
  StreamUsageReader,
  usageToReconcile,
  type Billing,
} from '../../src/domain/budget/upstream-usage.js';
import { thinkingDigest } from '../../src/domain/budget/thinking-origins.js';

/** The member written twice, if any: the shape check with bounds nothing here reaches. */
function findDuplicateKey(text: string): string | undefined {
  const problem = jsonTextProblem(text, { maxDepth: 10_000, maxNumberLength: 10_000 });
  return problem?.kind === 'duplicate' ? problem.name : undefined;
}

describe('a body is read as the provider would read it', () => {
  test('JSON without duplicate member names has none found, whatever its shape (property)', () => {
    fc.assert(
      fc.property(fc.json(), (text) => {
        assert.equal(findDuplicateKey(text), undefined);
      }),
      { numRuns: 500 },
    );
  });

  test('a member written twice in one object is found, also when escaped differently or nested (property)', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string({ minLength: 1 }), fc.jsonValue(), { minKeys: 1 }),
        fc.jsonValue(),
        (object, value) => {
          const [name] = Object.keys(object);
          const escaped = JSON.stringify(name).replace(
            /[a-z]/,
            (c) => `\\u00${c.charCodeAt(0).toString(16)}`,
          );
          const body = JSON.stringify(object).slice(0, -1);
          const doubled = `${body},${escaped}:${JSON.stringify(value)}}`;
          assert.equal(findDuplicateKey(doubled), name);
          assert.equal(findDuplicateKey(`{"outer":[1,${doubled}]}`), name);
        },
      ),
      { numRuns: 300 },
    );
  });

  test('the same name in sibling objects is not a duplicate', () => {
    assert.equal(findDuplicateKey('[{"a":1},{"a":2},{"b":{"a":3}}]'), undefined);
    assert.equal(findDuplicateKey('{"a":"\\\\","b":"\\"a\\":"}'), undefined);
  });

  test('nesting past the bound and long number literals are found in one pass over the text, brackets and digits inside strings ignored', () => {
    const limits = { maxDepth: 3, maxNumberLength: 5 };
    assert.equal(jsonTextProblem('[[["[[[[","12345678"]]]', limits), undefined);
    assert.deepEqual(jsonTextProblem('[[[[1]]]]', limits), { kind: 'too_deep', maxDepth: 3 });
    assert.deepEqual(jsonTextProblem('{"a":123456}', limits), {
      kind: 'long_number',
      maxLength: 5,
    });
    assert.equal(jsonTextProblem('[1e-5]', limits), undefined);
    // Far deeper than any call stack: found without recursion.
    const deep = '['.repeat(200_000) + ']'.repeat(200_000);
    assert.deepEqual(jsonTextProblem(deep, { maxDepth: 100, maxNumberLength: 32 }), {
      kind: 'too_deep',
      maxDepth: 100,
    });
  });

  test('a request names its failing field; the controls that shape the prompt are counted', () => {
    const bad = parseMessagesRequest(
      Buffer.from(
        JSON.stringify({
          model: 'm',
          max_tokens: 5,
          messages: [{ role: 'user', content: 'x' }],
          container: 'c',
        }),
      ),
    );
    assert.deepEqual(bad.ok ? undefined : bad.path, 'container');
    const good = parseMessagesRequest(
      Buffer.from(
        JSON.stringify({
          model: 'm',
          max_tokens: 5,
          stream: true,
          messages: [{ role: 'user', content: 'x' }],
          tool_choice: { type: 'auto' },
          thinking: { type: 'adaptive' },
        }),
      ),
    );
    assert.ok(good.ok);
    assert.equal(good.request.stream, true);
    assert.deepEqual(good.request.controls, [{ type: 'auto' }, { type: 'adaptive' }]);
  });
});

const stream = [
  'event: message_start',
  'data: {"type":"message_start","message":{"id":"m","usage":{"input_tokens":120,"cache_creation_input_tokens":30,"cache_read_input_tokens":7,"output_tokens":1}}}',
  '',
  'event: content_block_start',
  'data: {"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}',
  '',
  'event: content_block_delta',
  'data: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"héllo 👋"}}',
  '',
  'event: content_block_delta',
  'data: {"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"abc"}}',
  '',
  'event: content_block_delta',
  'data: {"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"def"}}',
  '',
  'event: content_block_stop',
  'data: {"type":"content_block_stop","index":0}',
  '',
  'event: content_block_start',
  'data: {"type":"content_block_start","index":1,"content_block":{"type":"redacted_thinking","data":"enc"}}',
  '',
  'event: ping',
  'data: {"type":"ping"}',
  '',
  'event: message_delta',
  'data: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":45}}',
  '',
  'event: message_stop',
  'data: {"type":"message_stop"}',
  '',
  '',
];

function read(chunks: Buffer[]) {
  const reader = new StreamUsageReader();
  const splitter = new SseSplitter((type, data) => {
    reader.event(type, data);
  });
  for (const chunk of chunks) splitter.push(chunk);
  splitter.end();
  return reader.report;
}

describe('the usage of a stream is read from the bytes passed through', () => {
  const expected = {
    inputReported: true,
    outputReported: true,
    usage: {
      input_tokens: 120,
      cache_creation_input_tokens: 30,
      cache_read_input_tokens: 7,
      output_tokens: 45,
    },
    complete: true,
    errored: false,
    thinking: [thinkingDigest('abcdef'), thinkingDigest('enc')],
  };

  test('split at every byte, with LF, CRLF or CR line ends, the report is the same', () => {
    for (const newline of ['\n', '\r\n', '\r']) {
      const bytes = Buffer.from(stream.join(newline), 'utf8');
      for (let cut = 0; cut <= bytes.length; cut += 1) {
        const report = read([bytes.subarray(0, cut), bytes.subarray(cut)]);
        assert.deepEqual(report, expected, `newline ${JSON.stringify(newline)}, cut at ${cut}`);
      }
      const byByte = read([...bytes].map((b) => Buffer.from([b])));
      assert.deepEqual(byByte, expected);
    }
  });

  test('a JSON answer reports its usage and its thinking blocks', () => {
    const report = readJsonAnswer(
      JSON.stringify({
        content: [
          { type: 'thinking', thinking: 't', signature: 'abcdef' },
          { type: 'redacted_thinking', data: 'enc' },
          { type: 'text', text: 'hi' },
        ],
        usage: expected.usage,
      }),
    );
    assert.deepEqual(report, expected);
    assert.deepEqual(readJsonAnswer('not json'), emptyReport());
  });

  test('a response of several passes counts each figure at the larger of its top level and its sum over the passes', () => {
    const report = readJsonAnswer(
      JSON.stringify({
        content: [],
        usage: {
          input_tokens: 23_000,
          output_tokens: 1_000,
          iterations: [
            { input_tokens: 180_000, output_tokens: 3_500 },
            { input_tokens: 23_000, output_tokens: 1_000 },
          ],
        },
      }),
    );
    assert.equal(report.usage.input_tokens, 203_000);
    assert.equal(report.usage.output_tokens, 4_500);
  });
});

describe('controls that would add billed work beside the request are refused', () => {
  const request = (extra: Record<string, unknown>) =>
    parseMessagesRequest(
      Buffer.from(
        JSON.stringify({
          model: 'm',
          max_tokens: 5,
          messages: [{ role: 'user', content: 'x' }],
          ...extra,
        }),
      ),
    );

  test('compaction is refused, naming the edit; clearing edits pass', () => {
    const compact = request({ context_management: { edits: [{ type: 'compact_20260112' }] } });
    assert.ok(!compact.ok);
    assert.equal(compact.path, 'context_management.edits[0].type');
    const clearing = request({
      context_management: {
        edits: [{ type: 'clear_tool_uses_20250919' }, { type: 'clear_thinking_20251015' }],
      },
    });
    assert.ok(clearing.ok, clearing.ok ? '' : clearing.message);
  });

  test('a body nested far deeper than any call stack, or of a million members, is a 400 found in one pass, never a stack overflow or a long walk', () => {
    const nested = `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`;
    const deep = parseMessagesRequest(
      Buffer.from(
        `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"x"}],"thinking":${nested}}`,
      ),
    );
    assert.ok(!deep.ok);
    assert.match(deep.message, /nested deeper than 100 levels/);
    const wide = request({
      tool_choice: Object.fromEntries(Array.from({ length: 1_000_000 }, (_, i) => [`k${i}`, 0])),
    });
    assert.ok(!wide.ok);
    assert.match(wide.message, /more than 200000 members and elements/);
  });

  test('metadata holds user_id and nothing else: any other member would be forwarded uncounted', () => {
    assert.ok(request({ metadata: { user_id: 'u-1' } }).ok);
    const extra = request({ metadata: { user_id: 'u-1', notes: 'x'.repeat(10_000) } });
    assert.ok(!extra.ok);
    assert.equal(extra.path, 'metadata.notes');
  });
});

describe('what a proxied request is reconciled with', () => {
  const booking = { inputBoundTokens: 1_000, maxOutputTokens: 500 };
  const started = { ...emptyReport(), inputReported: true };
  started.usage = { ...started.usage, input_tokens: 60, cache_read_input_tokens: 4 };
  const cases: [
    string,
    Parameters<typeof usageToReconcile>[0],
    Billing,
    { input: number; output: number },
  ][] = [
    [
      'refused with a whole error answer, or never sent: nothing',
      emptyReport(),
      'not_billed',
      { input: 0, output: 0 },
    ],
    [
      'billable, nothing reported (answered, or no answer after it was sent): the booking',
      emptyReport(),
      'billable',
      { input: 1_000, output: 500 },
    ],
    [
      'input reported, output never: the output at its booking',
      started,
      'billable',
      { input: 64, output: 500 },
    ],
    [
      'both reported: as reported',
      { ...started, outputReported: true, usage: { ...started.usage, output_tokens: 12 } },
      'billable',
      { input: 64, output: 12 },
    ],
  ];
  for (const [what, report, billing, figures] of cases) {
    test(what, () => {
      assert.deepEqual(usageToReconcile(report, billing, booking), figures);
    });
  }
});
