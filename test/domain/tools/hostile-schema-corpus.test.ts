import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { ArgumentValidator } from '../../../src/domain/tools/argument-validation.js';
import { guardSchema, guardToolSchemas } from '../../../src/domain/tools/schema-guard.js';

/**
 * The hostile-schema corpus: every schema ends uncallable (with the reason expected) or
 * validates its probes, and none blocks the event loop for 100 ms or more.
 */

const BLOCKING_LIMIT_MS = 100;
const ATTEMPTS = 3;

interface Probe {
  value: unknown;
  valid?: boolean;
}

interface Fixture {
  name: string;
  description: string;
  expect: 'uncallable' | 'validates';
  reason?: string;
  schema?: Record<string, unknown>;
  tools?: { name: string; input_schema: unknown }[];
  probes?: Probe[];
  probeGenerator?: { kind: string; count: number; valid: boolean };
}

const directory = new URL('../../fixtures/hostile-schemas/', import.meta.url);

function generatedProbe(generator: NonNullable<Fixture['probeGenerator']>): Probe {
  const { kind, count, valid } = generator;
  if (kind === 'distinct-integers')
    return { value: Array.from({ length: count }, (_, i) => i), valid };
  if (kind === 'distinct-objects') {
    const item = (i: number) => ({ id: i, tags: ['a', 'b', { deep: 'x'.repeat(40) }] });
    return { value: Array.from({ length: count }, (_, i) => item(i)), valid };
  }
  if (kind === 'long-string') return { value: `${'a'.repeat(count)}@${'b'.repeat(64)}`, valid };
  throw new Error(`unknown probe generator ${kind}`);
}

function nested(depth: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: 'string' };
  for (let level = 0; level < depth; level++) {
    schema = { type: 'object', properties: { a: schema } };
  }
  return schema;
}

function largestAccepted(): Record<string, unknown> {
  const schema = nested(30);
  const properties = schema.properties as Record<string, unknown>;
  for (let i = 0; i < 32; i++) {
    properties[`p${i}`] = { type: 'string', pattern: `^(?:[a-z]{1,${i + 1}}|x+y*)+$` };
  }
  for (let i = 0; i < 64; i++) properties[`n${i}`] = { type: 'integer', minimum: i % 2 };
  return schema;
}

/** A plain tool schema of 60 properties, different per seed. */
function ordinarySchema(seed: number): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (let i = 0; i < 20; i++) {
    properties[`s${seed}_${i}`] = { type: 'string', pattern: `^[a-z]{1,${i + 2}}$`, maxLength: 40 };
    properties[`n${seed}_${i}`] = { type: 'integer', minimum: 0, maximum: 100 + i };
    properties[`o${seed}_${i}`] = {
      type: 'object',
      properties: { when: { type: 'string', format: 'date-time' }, tags: { $ref: '#/$defs/tags' } },
      required: ['when'],
    };
  }
  return {
    type: 'object',
    properties,
    required: [`s${seed}_0`],
    $defs: { tags: { type: 'array', items: { type: 'string', enum: ['a', 'b', 'c'] } } },
  };
}

/** Hostile schemas too large for a file, built here. */
const generated: Fixture[] = [
  {
    name: 'generated: 1 MiB description',
    description: 'A megabyte of description text.',
    expect: 'uncallable',
    reason: 'larger than 65536 bytes',
    schema: { type: 'object', description: 'x'.repeat(1 << 20) },
  },
  {
    name: 'generated: 20000 properties',
    description: 'Twenty thousand properties, over half a megabyte of JSON.',
    expect: 'uncallable',
    reason: 'larger than 65536 bytes',
    schema: {
      type: 'object',
      properties: Object.fromEntries(
        Array.from({ length: 20000 }, (_, i) => [`property${i}`, { type: 'string' }]),
      ),
    },
  },
  {
    name: 'generated: nested 100000 levels',
    description: 'Nesting that would overflow any recursive walk.',
    expect: 'uncallable',
    reason: 'deeper than 64',
    schema: nested(100000),
  },
  {
    name: 'generated: the largest accepted shape',
    description: 'Near several bounds at once: 127 subschemas, 32 patterns, 61 levels of JSON.',
    expect: 'validates',
    schema: largestAccepted(),
    probes: [
      { value: { a: { a: { a: 'not an object' } } }, valid: false },
      { value: { p0: 'abc', n0: 1 }, valid: true },
    ],
  },
];

function loadFixtures(): Fixture[] {
  return readdirSync(directory)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => ({
      name: file.replace(/\.json$/, ''),
      ...(JSON.parse(readFileSync(new URL(file, directory), 'utf8')) as Omit<Fixture, 'name'>),
    }));
}

const fixtures = [...loadFixtures(), ...generated];
const validator = new ArgumentValidator();
const monitor = monitorEventLoopDelay({ resolution: 5 });
let worstDelayMs = 0;
let worstSyncMs = 0;
let worstFirstAttemptMs = 0;

/**
 * The guard, the compile and every probe, synchronously as the gate runs them. Probes are
 * built beforehand: building a large argument is the test's work, not the gate's.
 */
function prepare(fixture: Fixture): (attempt: number) => void {
  const probes = [...(fixture.probes ?? [])];
  if (fixture.probeGenerator) probes.push(generatedProbe(fixture.probeGenerator));
  return (attempt) => {
    if (fixture.tools) {
      const reasons = guardToolSchemas(fixture.tools);
      for (const tool of fixture.tools) {
        const reason = reasons.get(tool.name);
        assert.ok(reason !== undefined, `${tool.name} stayed callable`);
        assert.ok(reason.includes(fixture.reason ?? ''), reason);
      }
      return;
    }
    const schema = fixture.schema ?? {};
    // A fresh cache key per attempt, so every attempt compiles.
    const key = `corpus:${fixture.name}:${attempt}`;
    const guard = guardSchema(schema);
    if (fixture.expect === 'uncallable') {
      assert.equal(guard.ok, false, `${fixture.name} passed the guard`);
      assert.ok(guard.reason.includes(fixture.reason ?? ''), guard.reason);
      const result = validator.validate(schema, key, {});
      assert.equal(result.valid, false);
      assert.equal(result.kind, 'schema');
      return;
    }
    assert.ok(guard.ok, guard.ok ? '' : guard.reason);
    assert.ok(probes.length > 0, 'a schema that validates needs a probe');
    for (const probe of probes) {
      const result = validator.validate(schema, key, probe.value);
      if (!result.valid) assert.equal(result.kind, 'arguments', result.message);
      if (probe.valid !== undefined) assert.equal(result.valid, probe.valid);
    }
  };
}

describe('hostile schema corpus', () => {
  beforeAll(() => {
    // A process's first compiles load ajv and let V8 optimise its code generator: that cost
    // is the process's, paid once, not the schema's. Warm up on an ordinary tool schema.
    for (let round = 0; round < 3; round++) {
      const warmUp = ordinarySchema(round);
      validator.validate(warmUp, `corpus:warm-up-${round}`, {});
    }
    monitor.enable();
  });
  afterAll(() => {
    monitor.disable();
    console.log(
      `hostile corpus: ${fixtures.length} schemas; worst synchronous run ${worstSyncMs.toFixed(1)} ms of processor time, ` +
        `worst event-loop delay ${worstDelayMs.toFixed(1)} ms ` +
        `(worst on a first attempt ${worstFirstAttemptMs.toFixed(1)} ms)`,
    );
  });

  test('the corpus holds at least 20 schemas, each with an expectation', () => {
    assert.ok(fixtures.length >= 20);
    for (const fixture of fixtures) {
      assert.ok(['uncallable', 'validates'].includes(fixture.expect), fixture.name);
      assert.ok(fixture.description.length > 0, fixture.name);
    }
  });

  for (const fixture of fixtures) {
    test(`${fixture.name}: ${fixture.expect}, without blocking the event loop for ${BLOCKING_LIMIT_MS} ms`, async () => {
      const run = prepare(fixture);
      const attempts: string[] = [];
      // The blocking is the processor time the synchronous run takes: on a shared machine the
      // wall clock also counts the time the scheduler gave to others. The loop's delay is
      // reported beside it. A collection can land in any run: three attempts tell it apart.
      for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
        monitor.reset();
        // The monitor drops the first interval after a reset: let one pass before the work.
        await sleep(15);
        const cpuBefore = process.cpuUsage();
        run(attempt);
        const cpu = process.cpuUsage(cpuBefore);
        const syncMs = (cpu.user + cpu.system) / 1000;
        // Let the monitor's timer fire: a blocked loop shows up as that timer's lateness.
        await sleep(20);
        const delayMs = monitor.max / 1e6;
        if (attempt === 1) worstFirstAttemptMs = Math.max(worstFirstAttemptMs, delayMs);
        worstDelayMs = Math.max(worstDelayMs, delayMs);
        if (syncMs < BLOCKING_LIMIT_MS) {
          worstSyncMs = Math.max(worstSyncMs, syncMs);
          return;
        }
        attempts.push(`ran ${syncMs.toFixed(1)} ms of processor time`);
      }
      assert.fail(`${fixture.name} blocked the event loop: ${attempts.join('; ')}`);
    });
  }
});
