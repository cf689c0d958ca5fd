import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import fc from 'fast-check';
import {
  firstExhausted,
  levelFits,
  levelLabel,
  type SpendLevel,
} from '../../../src/domain/budget/spend-levels.js';

const level = (changes: Partial<SpendLevel>): SpendLevel => ({
  kind: 'workspace',
  name: null,
  period: 'month',
  max_nanos: null,
  max_tokens: null,
  held_nanos: 0,
  used_nanos: 0,
  held_tokens: 0,
  used_tokens: 0,
  ...changes,
});

describe('a booking fits a level only within each of its caps', () => {
  test('refusals name their level as `team "payments", month`', () => {
    assert.equal(
      levelLabel({ kind: 'team', name: 'payments', period: 'month' }),
      'team "payments", month',
    );
    assert.equal(levelLabel({ kind: 'run', name: null, period: 'life' }), 'run, life');
    assert.equal(levelLabel({ kind: 'person', name: 'ana', period: 'day' }), 'person "ana", day');
  });

  test('money and tokens are each capped when set, used plus held plus the booking at most the cap', () => {
    const capped = level({ max_nanos: 100, max_tokens: 10, used_nanos: 40, held_nanos: 20 });
    assert.ok(levelFits(capped, { nanos: 40, tokens: 10 }));
    assert.ok(!levelFits(capped, { nanos: 41, tokens: 1 }));
    assert.ok(!levelFits(capped, { nanos: 1, tokens: 11 }));
    assert.ok(levelFits(level({ max_tokens: 5 }), { nanos: 10 ** 15, tokens: 5 }));
  });

  test('the narrowest level that cannot take the booking is the one named', () => {
    const full = { max_nanos: 1 };
    const levels = [
      level({ kind: 'workspace', ...full }),
      level({ kind: 'team', name: 'payments', ...full }),
      level({ kind: 'person', name: 'ana', max_nanos: 100 }),
    ];
    assert.equal(firstExhausted(levels, { nanos: 2, tokens: 0 })?.kind, 'team');
    assert.equal(firstExhausted(levels, { nanos: 1, tokens: 0 }), undefined);
  });
});

type Step =
  | { kind: 'admit'; nanos: number; tokens: number }
  | { kind: 'settle'; which: number; fraction: number }
  | { kind: 'expire'; which: number };

interface Hold {
  levels: number[];
  nanos: number;
  tokens: number;
}

describe('no level is ever over its cap, whatever the interleaving (property)', () => {
  test('admissions at several overlapping levels and settlements at or under their booking, in any order', () => {
    const caps = fc.array(
      fc.record({
        max_nanos: fc.option(fc.integer({ min: 1, max: 1_000 }), { nil: null }),
        max_tokens: fc.option(fc.integer({ min: 1, max: 100 }), { nil: null }),
      }),
      { minLength: 1, maxLength: 5 },
    );
    const step: fc.Arbitrary<Step> = fc.oneof(
      fc.record({
        kind: fc.constant('admit' as const),
        nanos: fc.integer({ min: 0, max: 300 }),
        tokens: fc.integer({ min: 0, max: 30 }),
      }),
      fc.record({
        kind: fc.constant('settle' as const),
        which: fc.nat(),
        fraction: fc.double({ min: 0, max: 1, noNaN: true }),
      }),
      fc.record({ kind: fc.constant('expire' as const), which: fc.nat() }),
    );
    fc.assert(
      fc.property(
        caps,
        fc.array(fc.array(fc.nat(), { maxLength: 5 }), { minLength: 1, maxLength: 50 }),
        fc.array(step, { maxLength: 200 }),
        (capList, memberships, steps) => {
          const levels = capList.map((cap) => level(cap));
          const holds: Hold[] = [];
          let admission = 0;
          for (const s of steps) {
            if (s.kind === 'admit') {
              // Each request falls under a subset of the levels (its run, person, teams, …).
              const under = [
                ...new Set(
                  (memberships[admission % memberships.length] ?? []).map((i) => i % levels.length),
                ),
              ];
              admission += 1;
              const mine = under.map((i) => levels[i]!);
              if (firstExhausted(mine, s) !== undefined) continue;
              for (const l of mine) {
                l.held_nanos += s.nanos;
                l.held_tokens += s.tokens;
              }
              holds.push({ levels: under, nanos: s.nanos, tokens: s.tokens });
            } else if (holds.length > 0) {
              const [hold] = holds.splice(s.which % holds.length, 1);
              // Real usage is at most the booking (a genuine worst case); an expiry charges it.
              const share = s.kind === 'settle' ? s.fraction : 1;
              const nanos = Math.floor(hold!.nanos * share);
              const tokens = Math.floor(hold!.tokens * share);
              for (const i of hold!.levels) {
                const l = levels[i]!;
                l.held_nanos -= hold!.nanos;
                l.held_tokens -= hold!.tokens;
                l.used_nanos += nanos;
                l.used_tokens += tokens;
              }
            }
            for (const l of levels) {
              if (l.max_nanos !== null) assert.ok(l.used_nanos + l.held_nanos <= l.max_nanos);
              if (l.max_tokens !== null) assert.ok(l.used_tokens + l.held_tokens <= l.max_tokens);
              assert.ok(l.held_nanos >= 0 && l.held_tokens >= 0);
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
