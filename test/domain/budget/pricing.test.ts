import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import fc from 'fast-check';
import {
  costOf,
  defaultPrices,
  formatUsd,
  formatUsdPerMtok,
  parseUsd,
  parseUsdPerMtok,
  priceLookupNames,
  resolvePrice,
  settlementCost,
  worstCaseCost,
  type ModelPrice,
} from '../../../src/domain/budget/pricing.js';

const shipped = (model: string) => {
  const entry = defaultPrices.prices.find((p) => p.model === model);
  assert.ok(entry, model);
  return entry.price;
};

const sonnet = shipped('claude-sonnet-4-5');
const none = { input: 0, cache_write: 0, cache_read: 0, output: 0 };

describe('prices are exact integers of nano-dollars', () => {
  test('a price per million tokens is nano-dollars per token, both ways, never a float', () => {
    assert.equal(parseUsdPerMtok('3'), 3_000);
    assert.equal(parseUsdPerMtok('3.75'), 3_750);
    assert.equal(parseUsdPerMtok('0.005'), 5);
    assert.equal(parseUsdPerMtok('22.50'), 22_500);
    for (const bad of ['', '-1', '1e3', '0.0001', '01', '3.', 'NaN', ' 3'])
      assert.equal(parseUsdPerMtok(bad), undefined, bad);
    assert.equal(formatUsdPerMtok(22_500), '22.5');
    assert.equal(formatUsdPerMtok(5), '0.005');
    assert.equal(formatUsdPerMtok(0), '0');
  });

  test('an amount of dollars is nano-dollars, both ways, for any amount (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 999_999_999_999_999 }), (nanos) => {
        assert.equal(parseUsd(formatUsd(nanos)), nanos);
      }),
    );
    assert.equal(parseUsd('12.5'), 12_500_000_000);
    assert.equal(formatUsd(1), '0.000000001');
    assert.equal(parseUsd('0.0000000001'), undefined);
  });

  test('the shipped table is dated and sourced for each provider, and Sonnet 4.5 costs what Anthropic publishes', () => {
    for (const source of Object.values(defaultPrices.sources)) {
      assert.match(source.as_of, /^\d{4}-\d{2}-\d{2}$/);
      assert.match(source.url, /^https:\/\//);
    }
    assert.deepEqual(sonnet, {
      input: 3_000,
      output: 15_000,
      cache_write: 3_750,
      cache_read: 300,
      long_context: [
        {
          above_input_tokens: 200_000,
          input: 6_000,
          output: 22_500,
          cache_write: 7_500,
          cache_read: 600,
        },
      ],
    });
  });
});

describe('the cost of an exchange is the price table applied to its reported usage', () => {
  test('each kind of token at its own price: 1,000 in, 2,000 written, 3,000 read, 500 out', () => {
    // 1000 × 3000 + 2000 × 3750 + 3000 × 300 + 500 × 15000 nano-dollars.
    assert.equal(
      costOf(sonnet, { input: 1_000, cache_write: 2_000, cache_read: 3_000, output: 500 }),
      3_000_000 + 7_500_000 + 900_000 + 7_500_000,
    );
  });

  test('past the long-context threshold the whole request is priced at the tier, cache reads and writes counting towards it', () => {
    const at = (usage: Partial<typeof none>) => costOf(sonnet, { ...none, ...usage });
    assert.equal(at({ input: 200_000, output: 100 }), 200_000 * 3_000 + 100 * 15_000);
    assert.equal(at({ input: 200_001, output: 100 }), 200_001 * 6_000 + 100 * 22_500);
    // 100k uncached + 100k read + 1 written passes 200k: every part at the tier.
    assert.equal(
      at({ input: 100_000, cache_read: 100_000, cache_write: 1, output: 10 }),
      100_000 * 6_000 + 100_000 * 600 + 7_500 + 10 * 22_500,
    );
  });

  test('with several tiers, the highest one passed applies', () => {
    const tiered: ModelPrice = {
      input: 1,
      output: 2,
      cache_write: 1,
      cache_read: 1,
      long_context: [
        { above_input_tokens: 1_000, input: 10, output: 20, cache_write: 10, cache_read: 10 },
        { above_input_tokens: 100, input: 5, output: 7, cache_write: 5, cache_read: 5 },
      ],
    };
    assert.equal(costOf(tiered, { ...none, input: 100, output: 1 }), 100 + 2);
    assert.equal(costOf(tiered, { ...none, input: 101, output: 1 }), 505 + 7);
    assert.equal(costOf(tiered, { ...none, input: 1_001, output: 1 }), 10_010 + 20);
  });

  test('the worst case bounds every usage within the booking, tiers and cache kinds included (property)', () => {
    const rates = fc.record({
      input: fc.integer({ min: 0, max: 100_000 }),
      output: fc.integer({ min: 0, max: 100_000 }),
      cache_write: fc.integer({ min: 0, max: 100_000 }),
      cache_read: fc.integer({ min: 0, max: 100_000 }),
    });
    const price = fc.record({
      input: rates.map((r) => r.input),
      output: rates.map((r) => r.output),
      cache_write: rates.map((r) => r.cache_write),
      cache_read: rates.map((r) => r.cache_read),
      long_context: fc.array(
        fc.record({
          above_input_tokens: fc.integer({ min: 1, max: 500_000 }),
          input: fc.integer({ min: 0, max: 100_000 }),
          output: fc.integer({ min: 0, max: 100_000 }),
          cache_write: fc.integer({ min: 0, max: 100_000 }),
          cache_read: fc.integer({ min: 0, max: 100_000 }),
        }),
        { maxLength: 3 },
      ),
    });
    fc.assert(
      fc.property(
        price,
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.integer({ min: 1, max: 200_000 }),
        fc.tuple(fc.nat(), fc.nat(), fc.nat(), fc.nat()),
        (p, bound, maxOutput, [a, b, c, d]) => {
          // A usage within the booking: its input kinds sum to at most the bound.
          const input = a % (bound + 1);
          const write = b % (bound - input + 1);
          const read = c % (bound - input - write + 1);
          const usage = {
            input,
            cache_write: write,
            cache_read: read,
            output: d % (maxOutput + 1),
          };
          const worst = worstCaseCost(p, { inputBoundTokens: bound, maxOutputTokens: maxOutput });
          assert.ok(costOf(p, usage) <= worst);
        },
      ),
      { numRuns: 500 },
    );
  });

  test('a part the upstream never reported counts at its worst case; a usage reported whole is priced as reported', () => {
    const booking = { inputBoundTokens: 1_000, maxOutputTokens: 100 };
    const usage = { input: 10, cache_write: 0, cache_read: 20, output: 5 };
    assert.equal(
      settlementCost(sonnet, { usage, inputReported: true, outputReported: true }, booking),
      costOf(sonnet, usage),
    );
    assert.equal(
      settlementCost(sonnet, { usage, inputReported: true, outputReported: false }, booking),
      costOf(sonnet, { ...usage, output: 100 }),
    );
    assert.equal(
      settlementCost(sonnet, { usage, inputReported: false, outputReported: false }, booking),
      worstCaseCost(sonnet, booking),
    );
  });
});

describe('which price applies', () => {
  test("the operator's price, else the shipped one, a dated model id as its undated name, else the fallback, else none", () => {
    const own: ModelPrice = {
      input: 1,
      output: 1,
      cache_write: 1,
      cache_read: 1,
      long_context: [],
    };
    const fallback: ModelPrice = { ...own, input: 9 };
    assert.deepEqual(priceLookupNames('anthropic', 'claude-sonnet-4-5-20250929'), [
      'claude-sonnet-4-5-20250929',
      'claude-sonnet-4-5',
    ]);
    // An OpenAI snapshot may cost other than its alias: priced under its own name, or refused.
    assert.deepEqual(priceLookupNames('openai', 'gpt-4o-2024-05-13'), ['gpt-4o-2024-05-13']);
    assert.equal(
      resolvePrice('openai', 'gpt-4o-2024-05-13', () => undefined, undefined),
      undefined,
    );
    const nothing = () => undefined;
    assert.deepEqual(resolvePrice('anthropic', 'claude-sonnet-4-5-20250929', nothing, undefined), {
      price: sonnet,
      source: 'default',
    });
    assert.deepEqual(
      resolvePrice(
        'anthropic',
        'claude-sonnet-4-5',
        (_k, m) => (m === 'claude-sonnet-4-5' ? own : undefined),
        undefined,
      ),
      { price: own, source: 'operator' },
    );
    assert.deepEqual(resolvePrice('anthropic', 'claude-fake-1', nothing, fallback), {
      price: fallback,
      source: 'fallback',
    });
    assert.equal(resolvePrice('anthropic', 'claude-fake-1', nothing, undefined), undefined);
    // Another provider's model of the same name is not this one's.
    assert.equal(resolvePrice('openai', 'claude-sonnet-4-5', nothing, undefined), undefined);
    // An OpenAI snapshot is priced only under its own name (the operator's table may name it).
    assert.equal(resolvePrice('openai', 'gpt-4o-2024-08-06', nothing, undefined), undefined);
  });
});
