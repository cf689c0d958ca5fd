import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import {
  DEFAULT_SCHEMA_LIMITS,
  guardSchema,
  guardToolSchemas,
  schemaDialect,
} from '../../../src/domain/tools/schema-guard.js';

function refused(schema: unknown, reason: RegExp, limits = {}): void {
  const result = guardSchema(schema, limits);
  assert.equal(result.ok, false, `expected a refusal matching ${reason}`);
  assert.match(result.reason, reason);
}

function accepted(schema: unknown): number {
  const result = guardSchema(schema);
  assert.ok(result.ok, result.ok ? '' : result.reason);
  return result.costPerValue;
}

describe('schema guard', () => {
  test('an ordinary tool schema passes', () => {
    accepted({
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: {
        path: { type: 'string', minLength: 1, pattern: '^[^\\0]+$' },
        mode: { enum: ['read', 'write'] },
        when: { type: 'string', format: 'date-time' },
        lines: { type: 'array', items: { type: 'integer' }, uniqueItems: true },
      },
      required: ['path'],
      additionalProperties: false,
    });
  });

  test('a schema over the byte bound is refused, however the bytes are spent', () => {
    refused({ description: 'x'.repeat(DEFAULT_SCHEMA_LIMITS.maxBytes) }, /larger than 65536 bytes/);
    refused({ enum: Array.from({ length: 1000 }, (_, i) => `value-${i}`) }, /larger than/, {
      maxBytes: 4096,
    });
    refused({ description: 'é'.repeat(DEFAULT_SCHEMA_LIMITS.maxBytes / 2) }, /larger than/);
  });

  test('nesting deeper than the bound is refused without recursion, even 200000 levels deep', () => {
    let schema: unknown = { type: 'string' };
    for (let level = 0; level < 200000; level++) schema = { anyOf: [schema] };
    refused(schema, /deeper than 64 levels/);
  });

  test('more subschemas than the bound is refused', () => {
    const properties = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`p${i}`, {}]));
    refused({ type: 'object', properties }, /more than 128 subschemas/);
  });

  test('every $ref must be local: http, file and relative references are refused', () => {
    for (const ref of [
      'http://example.com/schema',
      'file:///etc/passwd',
      'other.json#/a',
      'urn:x',
    ]) {
      refused({ properties: { a: { $ref: ref } } }, /only local references/);
    }
  });

  test('a local $ref must name a subschema: not data, not nothing', () => {
    refused({ default: { type: 'string' }, $ref: '#/default' }, /does not name a subschema/);
    refused({ enum: [{ pattern: '(a+)+' }], $ref: '#/enum/0' }, /does not name a subschema/);
    refused({ 'x-extra': { type: 'string' }, $ref: '#/x-extra' }, /does not name a subschema/);
    refused({ $ref: '#/definitions/missing' }, /does not name a subschema/);
    refused({ $ref: '#/definitions/%E0%A4%A' }, /does not name a subschema/);
    refused({ $ref: '#missing' }, /does not name a subschema/);
  });

  test('local references to definitions, $defs, anchors and escaped names pass', () => {
    accepted({
      properties: {
        a: { $ref: '#/definitions/point' },
        b: { $ref: '#/$defs/a~1b' },
        c: { $ref: '#/$defs/with%20space' },
        d: { $ref: '#named' },
      },
      definitions: { point: { type: 'object' } },
      $defs: { 'a/b': { type: 'string' }, 'with space': true, n: { $anchor: 'named' } },
    });
  });

  test('$data is refused anywhere in the document', () => {
    refused({ properties: { a: { maximum: { $data: '1/b' } } } }, /\$data/);
    refused({ 'x-vendor': { nested: [{ $data: 1 }] } }, /\$data/);
  });

  test('a pattern RE2 cannot compile is refused: backreference, lookahead, lookbehind', () => {
    refused({ pattern: '(a)\\1' }, /RE2/);
    refused({ pattern: '^(?=.*\\d).+$' }, /RE2/);
    refused({ pattern: '(?<!a)b' }, /RE2/);
    refused({ patternProperties: { '(x)\\1': {} } }, /RE2/);
  });

  test('a catastrophic-for-backtracking pattern passes: RE2 runs it in linear time', () => {
    accepted({ type: 'string', pattern: '^(a|a)*$' });
    accepted({ patternProperties: { '^(a+)+$': { type: 'integer' } } });
  });

  test('patterns are bounded in number and length', () => {
    const properties = Object.fromEntries(
      Array.from({ length: 33 }, (_, i) => [`p${i}`, { pattern: `^${i}$` }]),
    );
    refused({ properties }, /more than 32 patterns/);
    refused({ pattern: 'a'.repeat(1025) }, /longer than 1024 characters/);
  });

  test('format is allowed only from the safe list', () => {
    for (const format of [
      'date',
      'time',
      'date-time',
      'uuid',
      'email',
      'hostname',
      'ipv4',
      'ipv6',
      'uri',
      'uri-reference',
    ]) {
      accepted({ type: 'string', format });
    }
    for (const format of [
      'regex',
      'idn-email',
      'iri',
      'uri-template',
      'json-pointer',
      'x-anything',
    ]) {
      refused({ type: 'string', format }, /format/);
    }
    refused({ format: 7 }, /format/);
  });

  test('an enum is bounded in size, and counts toward the cost of a value', () => {
    refused({ enum: Array.from({ length: 1025 }, (_, i) => i) }, /more than 1024 values/);
    assert.equal(accepted({ enum: [1, 2, 3] }), 4);
  });

  test('uniqueItems over items that are not scalar-typed needs a small maxItems', () => {
    refused({ type: 'array', uniqueItems: true }, /uniqueItems/);
    refused({ type: 'array', uniqueItems: true, items: { type: 'object' } }, /uniqueItems/);
    refused({ uniqueItems: true, items: { type: 'object' }, maxItems: 10000 }, /uniqueItems/);
    accepted({ type: 'array', uniqueItems: true, items: { type: ['string', 'integer'] } });
    accepted({ type: 'array', uniqueItems: true, items: { type: 'object' }, maxItems: 256 });
  });

  test('a $ref loop on the same value is refused: it would never end', () => {
    refused({ allOf: [{ $ref: '#' }, { $ref: '#' }] }, /never end/);
    refused({ $ref: '#' }, /never end/);
    refused(
      { if: { $ref: '#/definitions/a' }, definitions: { a: { not: { $ref: '#' } } } },
      /never end/,
    );
  });

  test('recursion that descends into the arguments passes; recursion that multiplies is refused', () => {
    const tree = {
      type: 'object',
      properties: { value: { type: 'integer' }, left: { $ref: '#' }, right: { $ref: '#' } },
    };
    assert.equal(accepted(tree), 2);
    refused({ items: { anyOf: [{ $ref: '#' }, { $ref: '#' }] } }, /multiplies/);
    refused(
      { properties: { a: { $ref: '#' } }, patternProperties: { '^a$': { $ref: '#' } } },
      /multiplies/,
    );
  });

  test('a chain of definitions each applied twice is refused: exponential without a loop', () => {
    const definitions: Record<string, unknown> = { d20: { type: 'string' } };
    for (let i = 0; i < 20; i++) {
      definitions[`d${i}`] = {
        allOf: [{ $ref: `#/definitions/d${i + 1}` }, { $ref: `#/definitions/d${i + 1}` }],
      };
    }
    refused({ $ref: '#/definitions/d0', definitions }, /units of subschemas/);
  });

  test('a long chain of nesting and $ref is refused: the compiler would recurse too deep', () => {
    const definitions = Object.fromEntries(
      Array.from({ length: 40 }, (_, i) => [
        `d${i}`,
        { type: 'object', properties: { next: { $ref: `#/definitions/d${(i + 1) % 40}` } } },
      ]),
    );
    refused({ $ref: '#/definitions/d0', definitions }, /recurse too deep/);
  });

  test('anchors must be unique, and a nested $id may only be an anchor', () => {
    const draft07 = 'http://json-schema.org/draft-07/schema#';
    refused(
      { $schema: draft07, definitions: { a: { $id: '#x' }, b: { $id: '#x' } } },
      /declared twice/,
    );
    refused({ $defs: { a: { $anchor: 'x' }, b: { $anchor: 'x' } } }, /declared twice/);
    refused({ definitions: { a: { $id: 'https://evil.example/' } } }, /nested \$id/);
    refused({ $defs: { a: { $id: '#x' } } }, /use \$anchor/);
    accepted({
      $schema: draft07,
      $id: 'https://example.com/root',
      definitions: { a: { $id: '#x' } },
    });
  });

  test('dynamic references are refused', () => {
    refused({ $dynamicAnchor: 'a', properties: { b: { $dynamicRef: '#a' } } }, /\$dynamic/);
    refused({ $recursiveAnchor: true }, /\$recursiveAnchor/);
  });

  test('only supported dialects: draft-07, 2019-09, 2020-12, and 2020-12 when none is named', () => {
    assert.equal(schemaDialect({}), '2020-12');
    assert.equal(schemaDialect({ $schema: 'http://json-schema.org/draft-07/schema#' }), 'draft-07');
    assert.equal(
      schemaDialect({ $schema: 'https://json-schema.org/draft/2019-09/schema' }),
      '2019-09',
    );
    refused({ $schema: 'http://json-schema.org/draft-04/schema#' }, /not a supported dialect/);
    refused(
      { properties: { a: { $schema: 'http://json-schema.org/draft-07/schema#' } } },
      /switch dialect/,
    );
    refused({ items: [{ type: 'string' }] }, /use prefixItems/);
  });

  test('what is not a JSON tree is refused: non-finite numbers, cycles, non-plain objects', () => {
    refused({ maximum: Number.POSITIVE_INFINITY }, /not finite/);
    const cyclic: Record<string, unknown> = { type: 'object' };
    cyclic.properties = { self: cyclic };
    refused(cyclic, /seen twice/);
    refused({ properties: { a: new Date() } }, /not a plain JSON object/);
    refused({ default: undefined }, /not JSON/);
    refused({ properties: { a: 5 } }, /must be an object or a boolean/);
    refused({ properties: [] }, /must be an object of schemas/);
  });

  test('limits can be tightened per call', () => {
    refused({ properties: { a: {}, b: {} } }, /more than 2 subschemas/, { maxSubschemas: 2 });
  });
});

describe('tool schema guard', () => {
  test('two tools declaring the same $id are both uncallable', () => {
    const reasons = guardToolSchemas([
      { name: 'read', input_schema: { $id: 'https://tools.example/args', type: 'object' } },
      { name: 'write', input_schema: { $id: 'https://tools.example/args#', type: 'object' } },
      { name: 'list', input_schema: { $id: 'https://tools.example/list', type: 'object' } },
    ]);
    assert.deepEqual([...reasons.keys()].sort(), ['read', 'write']);
    assert.match(reasons.get('read') ?? '', /also declared by "write"/);
  });

  test('a tool whose schema fails the guard is named with its reason; the others are not', () => {
    const reasons = guardToolSchemas([
      { name: 'ok', input_schema: { type: 'object' } },
      { name: 'remote', input_schema: { $ref: 'https://evil.example/schema' } },
    ]);
    assert.deepEqual([...reasons.keys()], ['remote']);
    assert.match(reasons.get('remote') ?? '', /only local references/);
  });

  test('two tools of the same name are refused', () => {
    const reasons = guardToolSchemas([
      { name: 'twin', input_schema: {} },
      { name: 'twin', input_schema: {} },
    ]);
    assert.match(reasons.get('twin') ?? '', /two tools are named "twin"/);
  });
});
