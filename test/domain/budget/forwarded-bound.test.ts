import assert from 'node:assert/strict';
import { test } from 'vitest';
import fc from 'fast-check';
import {
  messagesInputBound,
  parseMessagesRequest,
} from '../../../src/domain/budget/messages-request.js';
import { billedInputTokens } from '../../support/fake-anthropic.js';

/**
 * Request bodies as a hostile sandbox writes them: JSON text written member by member, so names
 * a JavaScript object literal cannot hold ("__proto__") and repeated names are possible, in every
 * structured part of a Messages request.
 */
type Json = { entries: [string, Json][] } | Json[] | string | number | boolean | null;

function jsonText(value: Json): string {
  if (Array.isArray(value)) return `[${value.map(jsonText).join(',')}]`;
  if (value !== null && typeof value === 'object')
    return `{${value.entries.map(([k, v]) => `${JSON.stringify(k)}:${jsonText(v)}`).join(',')}}`;
  return JSON.stringify(value);
}

const specialNames = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'valueOf',
  'hasOwnProperty',
  '__defineGetter__',
  'then',
  'length',
];
const memberName = fc.oneof(
  { weight: 12, arbitrary: fc.string({ minLength: 1, maxLength: 8 }) },
  { weight: 1, arbitrary: fc.constantFrom(...specialNames) },
);
const text = fc.string({ unit: 'grapheme', maxLength: 40 });
/** Under a special name, a value far larger than any slack in the bound's constants. */
const hidden = fc.string({ minLength: 3_000, maxLength: 6_000 });
function members(value: fc.Arbitrary<Json>): fc.Arbitrary<[string, Json][]> {
  const member = fc.oneof(
    { weight: 12, arbitrary: fc.tuple(memberName, value) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...specialNames), hidden) },
  );
  return fc.array(member, { maxLength: 4 });
}

const { tree } = fc.letrec<{ tree: Json }>((tie) => ({
  tree: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    text,
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('tree'), { maxLength: 4 }),
    fc.record({ entries: members(tie('tree')) }),
  ),
}));
const object = fc.record({ entries: members(tree) });

const block = fc.oneof(
  fc
    .record({ type: fc.constant('text'), text })
    .map((b) => jsonText({ entries: Object.entries(b) })),
  fc
    .tuple(
      fc.string({ minLength: 1, maxLength: 8 }),
      fc.string({ minLength: 1, maxLength: 8 }),
      object,
    )
    .map(
      ([id, name, input]) =>
        `{"type":"tool_use","id":${JSON.stringify(id)},"name":${JSON.stringify(name)},"input":${jsonText(input)}}`,
    ),
  fc
    .tuple(fc.string({ minLength: 1, maxLength: 8 }), text)
    .map(
      ([id, content]) =>
        `{"type":"tool_result","tool_use_id":${JSON.stringify(id)},"content":${JSON.stringify(content)}}`,
    ),
);
const message = fc
  .tuple(
    fc.constantFrom('user', 'assistant'),
    fc.oneof(text, fc.array(block, { minLength: 1, maxLength: 3 })),
  )
  .map(
    ([role, content]) =>
      `{"role":"${role}","content":${typeof content === 'string' ? JSON.stringify(content) : `[${content.join(',')}]`}}`,
  );
const tool = fc
  .tuple(fc.string({ minLength: 1, maxLength: 8 }), object)
  .map(([name, schema]) => `{"name":${JSON.stringify(name)},"input_schema":${jsonText(schema)}}`);
const control = fc.constantFrom('tool_choice', 'thinking', 'output_config', 'context_management');

const body = fc
  .record({
    messages: fc.array(message, { minLength: 1, maxLength: 4 }),
    system: fc.option(text, { nil: undefined }),
    tools: fc.option(fc.array(tool, { maxLength: 3 }), { nil: undefined }),
    controls: fc.array(fc.tuple(control, object), { maxLength: 2 }),
    // Now and then a member the gate does not know, at the top.
    extra: fc.oneof(
      { weight: 9, arbitrary: fc.constant(undefined) },
      { weight: 1, arbitrary: fc.tuple(memberName, tree) },
    ),
  })
  .map(({ messages, system, tools, controls, extra }) => {
    const members = [
      '"model":"claude-fake-1"',
      '"max_tokens":100',
      `"messages":[${messages.join(',')}]`,
      ...(system === undefined ? [] : [`"system":${JSON.stringify(system)}`]),
      ...(tools === undefined ? [] : [`"tools":[${tools.join(',')}]`]),
      ...controls.map(([name, value]) => `${JSON.stringify(name)}:${jsonText(value)}`),
      ...(extra === undefined ? [] : [`${JSON.stringify(extra[0])}:${jsonText(extra[1])}`]),
    ];
    return Buffer.from(`{${members.join(',')}}`, 'utf8');
  });

test('over 3,000 seeded hostile bodies, the bound booked is never below what the stub upstream bills for the bytes forwarded', () => {
  let admitted = 0;
  let refused = 0;
  fc.assert(
    fc.property(body, (raw) => {
      const parsed = parseMessagesRequest(raw);
      if (!parsed.ok) {
        refused += 1;
        return;
      }
      admitted += 1;
      const bound = messagesInputBound(parsed.request).tokens;
      const billed = billedInputTokens(raw);
      assert.ok(bound >= billed, `bound ${bound} < billed ${billed} for ${raw.toString('utf8')}`);
    }),
    { seed: 20_261_201, numRuns: 3_000 },
  );
  // Both sides are exercised: most bodies are read, and the special names are refused.
  assert.ok(admitted >= 1_000, `only ${admitted} bodies were admitted`);
  assert.ok(refused >= 100, `only ${refused} bodies were refused`);
});

test('a body with "__proto__" anywhere is refused, and with the member renamed it is admitted and its bytes counted', () => {
  const hidden = 'q'.repeat(5_000);
  const at = (name: string) =>
    Buffer.from(
      `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"hi"}],"thinking":{${JSON.stringify(name)}:{"x":"${hidden}"}}}`,
    );
  const refused = parseMessagesRequest(at('__proto__'));
  assert.ok(!refused.ok);
  assert.equal(refused.path, 'thinking.__proto__');
  const renamed = parseMessagesRequest(at('proto'));
  assert.ok(renamed.ok);
  assert.ok(messagesInputBound(renamed.request).tokens >= hidden.length);
});
