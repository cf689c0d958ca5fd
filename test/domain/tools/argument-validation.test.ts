import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import {
  ArgumentValidator,
  MAX_ARGUMENT_DEPTH,
  VALIDATOR_CACHE_SIZE,
  validateArguments,
  type ArgumentValidation,
} from '../../../src/domain/tools/argument-validation.js';
import { digestOf } from '../../../src/domain/ledger/digest.js';

const readFile = {
  type: 'object',
  properties: {
    path: { type: 'string', minLength: 1 },
    range: {
      type: 'object',
      properties: { start: { type: 'integer', minimum: 1 }, end: { type: 'integer' } },
      required: ['start'],
    },
    encoding: { enum: ['utf8', 'base64'] },
  },
  required: ['path'],
  additionalProperties: false,
};

function check(schema: Record<string, unknown>, args: unknown): ArgumentValidation {
  return new ArgumentValidator().validate(schema, digestOf(schema), args);
}

function failedArguments(result: ArgumentValidation) {
  assert.equal(result.valid, false, 'expected invalid arguments');
  assert.equal(result.kind, 'arguments', result.message);
  return result;
}

describe('argument validation', () => {
  test('arguments that match an ordinary schema are valid', () => {
    assert.deepEqual(
      validateArguments(readFile, digestOf(readFile), {
        path: 'src/a.ts',
        range: { start: 1, end: 9 },
        encoding: 'utf8',
      }),
      { valid: true },
    );
  });

  test('a failing argument is named by its JSON pointer, in errors and in the message', () => {
    const result = failedArguments(check(readFile, { path: 'a', range: { start: 0 } }));
    assert.deepEqual(result.errors, [{ path: '/range/start', message: 'must be >= 1' }]);
    assert.equal(result.message, 'Invalid arguments: /range/start must be >= 1');
  });

  test('a missing required argument is named by the pointer where it belongs', () => {
    const result = failedArguments(check(readFile, { path: 'a', range: { end: 3 } }));
    assert.deepEqual(result.errors, [{ path: '/range/start', message: 'is required' }]);
    const top = failedArguments(check(readFile, {}));
    assert.deepEqual(top.errors, [{ path: '/path', message: 'is required' }]);
  });

  test('an argument the schema does not allow is named, so the model can drop it', () => {
    const result = failedArguments(check(readFile, { path: 'a', mode: 'w' }));
    assert.deepEqual(result.errors, [{ path: '/mode', message: 'is not allowed' }]);
  });

  test('pointer tokens are escaped, and the message stays on one line', () => {
    const schema = { type: 'object', required: ['a/b~c', 'line\nbreak'] };
    const slash = failedArguments(check(schema, { 'line\nbreak': 1 }));
    assert.equal(slash.errors[0]?.path, '/a~1b~0c');
    const newline = failedArguments(check(schema, { 'a/b~c': 1 }));
    assert.equal(newline.errors[0]?.path, '/line\nbreak');
    assert.doesNotMatch(newline.message, /\n/);
    assert.match(newline.message, /line\\u000abreak/);
  });

  test('arguments are never changed: no defaults, no coercion, no removal', () => {
    const schema = {
      type: 'object',
      properties: { n: { type: 'integer', default: 5 }, s: { type: 'string' } },
      additionalProperties: false,
    };
    const args = { s: '1' };
    check(schema, args);
    assert.deepEqual(args, { s: '1' });
    failedArguments(check(schema, { s: 1 }));
  });

  test('safe formats are checked, in linear time', () => {
    const schema = {
      type: 'object',
      properties: {
        when: { type: 'string', format: 'date-time' },
        day: { type: 'string', format: 'date' },
        id: { type: 'string', format: 'uuid' },
        mail: { type: 'string', format: 'email' },
        host: { type: 'string', format: 'hostname' },
        v4: { type: 'string', format: 'ipv4' },
        v6: { type: 'string', format: 'ipv6' },
        link: { type: 'string', format: 'uri' },
        ref: { type: 'string', format: 'uri-reference' },
      },
    };
    const good = {
      when: '2024-02-29T23:59:60.25+05:30',
      day: '2000-02-29',
      id: '123e4567-e89b-12d3-a456-426614174000',
      mail: 'first.last+tag@mail.example.com',
      host: 'a-b.example',
      v4: '192.168.0.255',
      v6: '2001:db8::ffff:192.0.2.1',
      link: 'https://example.com/a%20b?q=1#x',
      ref: '../a/b?c',
    };
    assert.deepEqual(check(schema, good), { valid: true });
    const bad: [string, string][] = [
      ['when', '2024-02-29T24:00:00Z'],
      ['when', '2024-02-29T10:00:00'],
      ['day', '2001-02-29'],
      ['id', '123e4567e89b12d3a456426614174000'],
      ['mail', 'no-at-sign.example'],
      ['mail', 'a..b@example.com'],
      ['host', '-leading.example'],
      ['v4', '256.1.1.1'],
      ['v4', '01.1.1.1'],
      ['v6', '1::2::3'],
      ['v6', '1:2:3:4:5:6:7:8:9'],
      ['link', 'no-scheme/path'],
      ['link', 'https://example.com/a b'],
      ['ref', 'bad%zz'],
    ];
    for (const [name, value] of bad) {
      const result = failedArguments(check(schema, { ...good, [name]: value }));
      assert.equal(result.errors[0]?.path, `/${name}`, `${name}: ${value}`);
    }
  });

  test('a pattern runs on RE2 (it reads an inline flag JavaScript refuses): a catastrophic pattern answers in linear time', () => {
    // Only RE2 reads `(?i)`: on JavaScript's RegExp this schema could not even be compiled.
    const caseless = { type: 'string', pattern: '^(?i)abc$' };
    assert.deepEqual(check(caseless, 'ABC'), { valid: true });
    const schema = { type: 'string', pattern: '^(a|a)*$' };
    const validator = new ArgumentValidator();
    const digest = digestOf(schema);
    // Compiled first, so only the pattern's run is timed.
    assert.deepEqual(validator.validate(schema, digest, 'a'), { valid: true });
    // Backtracking would take 2^32 steps (a minute or more); RE2 reads 33 characters. The
    // bound is catastrophic only: thousands of times RE2's cost, under backtracking's.
    const started = performance.now();
    const result = failedArguments(validator.validate(schema, digest, `${'a'.repeat(32)}b`));
    const took = performance.now() - started;
    assert.ok(took < 1_000, `${took} ms`);
    assert.match(result.message, /must match pattern/);
    assert.deepEqual(validator.validate(schema, digest, 'a'.repeat(100000)), { valid: true });
  });

  test('unknown keywords in a foreign schema are ignored, not fatal', () => {
    const schema = {
      type: 'object',
      'x-display': { order: 1 },
      properties: { a: { type: 'string', markdownDescription: 'A' } },
    };
    assert.deepEqual(check(schema, { a: 'x' }), { valid: true });
  });

  test('the dialect follows $schema: draft-07 tuples, 2020-12 prefixItems', () => {
    const draft07 = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'array',
      items: [{ type: 'string' }, { type: 'integer' }],
    };
    assert.deepEqual(check(draft07, ['a', 1]), { valid: true });
    assert.equal(failedArguments(check(draft07, [1, 'a'])).errors[0]?.path, '/0');
    const current = { type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }] };
    assert.equal(failedArguments(check(current, ['a', 'b'])).errors[0]?.path, '/1');
  });

  test('a schema the guard refuses is a distinct failure, never a throw', () => {
    const result = check({ $ref: 'https://evil.example/schema' }, {});
    assert.equal(result.valid, false);
    assert.equal(result.kind, 'schema');
    assert.match(result.message, /refused: .*only local references/);
  });

  test('a schema the guard lets through but ajv rejects is a distinct failure, never a throw', () => {
    const invalid = check({ type: 'strng' }, 1);
    assert.ok(!invalid.valid && invalid.kind === 'schema', JSON.stringify(invalid));
    assert.match(invalid.message, /not valid 2020-12/);
    const wrongKeywordType = check(
      { $schema: 'http://json-schema.org/draft-07/schema#', minLength: 'x' },
      'a',
    );
    assert.ok(!wrongKeywordType.valid && wrongKeywordType.kind === 'schema');
  });

  test('arguments nested deeper than the bound are refused before ajv recurses', () => {
    let args: unknown = 1;
    for (let level = 0; level <= MAX_ARGUMENT_DEPTH; level++) args = [args];
    const result = failedArguments(
      check({ $defs: { v: { items: { $ref: '#/$defs/v' } } }, $ref: '#/$defs/v' }, args),
    );
    assert.match(result.message, /nest deeper than 64 levels/);
  });

  test('arguments too heavy for the schema are refused, in proportion to its cost per value', () => {
    const costly = {
      anyOf: [{ enum: Array.from({ length: 1000 }, (_, i) => `v${i}`) }, { type: 'array' }],
    };
    const result = failedArguments(
      check(
        costly,
        Array.from({ length: 2000 }, (_, i) => i),
      ),
    );
    assert.match(result.message, /too large to validate/);
    assert.deepEqual(
      check(
        { type: 'array' },
        Array.from({ length: 2000 }, (_, i) => i),
      ),
      {
        valid: true,
      },
    );
  });

  test('a long string costs only where the schema reads it end to end', () => {
    const plain = { type: 'object', properties: { content: { type: 'string' } } };
    assert.deepEqual(check(plain, { content: 'x'.repeat(5_000_000) }), { valid: true });
    const scanned = {
      type: 'string',
      allOf: Array.from({ length: 30 }, (_, i) => ({ pattern: `^[a-z]*(?:${i})?$` })),
    };
    assert.deepEqual(check(scanned, 'x'.repeat(100_000)), { valid: true });
    const result = failedArguments(check(scanned, 'x'.repeat(2_000_000)));
    assert.match(result.message, /too large to validate/);
  });

  test('the same digest reuses the compiled validator', () => {
    const validator = new ArgumentValidator();
    const digest = digestOf(readFile);
    validator.validate(readFile, digest, { path: 'a' });
    validator.validate(readFile, digest, { path: 'b' });
    validator.validate(readFile, digest, {});
    assert.equal(validator.compilations, 1);
    assert.equal(validator.size, 1);
  });

  test('a refused schema is cached too: a hostile schema is never compiled twice', () => {
    const validator = new ArgumentValidator();
    const hostile = { allOf: [{ $ref: '#' }, { $ref: '#' }] };
    validator.validate(hostile, digestOf(hostile), {});
    validator.validate(hostile, digestOf(hostile), {});
    assert.equal(validator.compilations, 1);
  });

  test('the cache is bounded: filled past its capacity it holds the most recently used', () => {
    const validator = new ArgumentValidator(8);
    const schemaFor = (i: number) => ({
      type: 'object',
      properties: { [`p${i}`]: { type: 'integer' } },
    });
    for (let i = 0; i < 20; i++) validator.validate(schemaFor(i), digestOf(schemaFor(i)), {});
    assert.equal(validator.size, 8);
    // p12 is the oldest kept; using it makes p13 the next to go.
    validator.validate(schemaFor(12), digestOf(schemaFor(12)), {});
    validator.validate(schemaFor(99), digestOf(schemaFor(99)), {});
    const before = validator.compilations;
    validator.validate(schemaFor(12), digestOf(schemaFor(12)), {});
    assert.equal(validator.compilations, before);
    validator.validate(schemaFor(13), digestOf(schemaFor(13)), {});
    assert.equal(validator.compilations, before + 1);
  });

  test('a validator holds VALIDATOR_CACHE_SIZE validators by default, and no more', () => {
    const validator = new ArgumentValidator();
    assert.equal(validator.capacity, VALIDATOR_CACHE_SIZE);
    for (let i = 0; i < VALIDATOR_CACHE_SIZE + 10; i++) {
      const schema = { type: 'string', maxLength: i };
      validator.validate(schema, digestOf(schema), 'x');
    }
    assert.equal(validator.size, VALIDATOR_CACHE_SIZE);
  });
});
