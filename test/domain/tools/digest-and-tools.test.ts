import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { canonicalJson, digestOf } from '../../../src/domain/ledger/digest.js';
import {
  DuplicateToolError,
  freezeToolSet,
  photographDeclaredTool,
  toolSetDigest,
} from '../../../src/domain/tools/tools.js';

describe('canonical digests (RFC 8785)', () => {
  test('keys are sorted and numbers and strings are serialised canonically', () => {
    assert.equal(
      canonicalJson({ b: 1, a: [1e21, 0.1, -0, 'é\u2028'] }),
      '{"a":[1e+21,0.1,0,"é\u2028"],"b":1}',
    );
  });

  test('key order does not change a digest; a value does', () => {
    assert.equal(digestOf({ a: 1, b: { c: 2, d: 3 } }), digestOf({ b: { d: 3, c: 2 }, a: 1 }));
    assert.notEqual(digestOf({ a: 1 }), digestOf({ a: 2 }));
    assert.match(digestOf(null), /^sha256:[0-9a-f]{64}$/);
  });
});

const bundle = (id: string, tools: ReturnType<typeof photographDeclaredTool>[]) => ({
  class: 'sandbox' as const,
  origin: { kind: 'bundle' as const, bundle_id: id },
  binding: null,
  tools,
});
const freezeBundleTools = (
  sources: { id: string; tools: ReturnType<typeof photographDeclaredTool>[] }[],
) =>
  freezeToolSet(
    sources.map((s) => bundle(s.id, s.tools)),
    new Map(),
  );

describe('tools', () => {
  test('an undeclared effect counts as write, an undeclared schema as any object', () => {
    const tool = photographDeclaredTool({ name: 'Mystery' });
    assert.equal(tool.effect, 'write');
    assert.deepEqual(tool.input_schema, { type: 'object' });
  });

  test("a tool's digest covers its description, schema and effect", () => {
    const base = photographDeclaredTool({ name: 'Read', effect: 'read', description: 'reads' });
    assert.notEqual(
      base.digest,
      photographDeclaredTool({ name: 'Read', effect: 'write', description: 'reads' }).digest,
    );
    assert.notEqual(
      base.digest,
      photographDeclaredTool({ name: 'Read', effect: 'read', description: 'reads!' }).digest,
    );
    assert.notEqual(
      base.digest,
      photographDeclaredTool({
        name: 'Read',
        effect: 'read',
        description: 'reads',
        input_schema: { type: 'object', required: ['x'] },
      }).digest,
    );
  });

  test("a tool set's digest does not depend on the order tools were attached in", () => {
    const a = photographDeclaredTool({ name: 'A' });
    const b = photographDeclaredTool({ name: 'B' });
    const one = freezeBundleTools([{ id: 'x', tools: [a, b] }]);
    const two = freezeBundleTools([{ id: 'x', tools: [b, a] }]);
    assert.equal(toolSetDigest(one), toolSetDigest(two));
    assert.notEqual(
      toolSetDigest(one),
      toolSetDigest(freezeBundleTools([{ id: 'x', tools: [a] }])),
    );
  });

  test('a tool named uncallable by the schema guard is frozen uncallable, with the reason', () => {
    const a = photographDeclaredTool({ name: 'A' });
    const b = photographDeclaredTool({ name: 'B' });
    const [frozenA, frozenB] = freezeToolSet([bundle('x', [a, b])], new Map([['B', 'too deep']]));
    assert.equal(frozenA!.callable, true);
    assert.equal(frozenA!.uncallable_reason, undefined);
    assert.equal(frozenB!.callable, false);
    assert.equal(frozenB!.uncallable_reason, 'too deep');
  });

  test('two attached sources offering one tool name are refused', () => {
    const a = photographDeclaredTool({ name: 'A' });
    assert.throws(
      () =>
        freezeBundleTools([
          { id: 'x', tools: [a] },
          { id: 'y', tools: [a] },
        ]),
      DuplicateToolError,
    );
  });
});
