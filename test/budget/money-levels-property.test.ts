/**
 * The property of test/domain/budget/spend-levels.test.ts, against PostgreSQL: admissions and
 * settlements of three runs under shared levels, interleaved at random and run concurrently in
 * batches through the store's own functions. After every batch no level is over its cap, and at
 * the end every level's counters are the sums of what was booked and spent under it.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import fc from 'fast-check';
import type { ModelPrice } from '../../src/domain/budget/pricing.js';
import { admitModelRequest, reconcileModelRequest } from '../../src/store/budget.js';
import { useHarness } from '../support/harness.js';
import { createRun, expectStatus, seedWorkspace, type CreatedRun } from '../support/seed.js';
import { useStorePool } from '../support/store-pool.js';

const h = useHarness();
const store = useStorePool(20);

// A token is a nano-dollar in and out: bookings and costs are the token counts themselves.
const price: ModelPrice = { input: 1, output: 1, cache_write: 1, cache_read: 1, long_context: [] };

type Op =
  | { kind: 'admit'; run: number; input: number; output: number }
  | { kind: 'settle'; which: number; share: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('admit' as const),
      run: fc.integer({ min: 0, max: 2 }),
      input: fc.integer({ min: 1, max: 400 }),
      output: fc.integer({ min: 1, max: 400 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('settle' as const),
      which: fc.nat(),
      share: fc.double({ min: 0, max: 1, noNaN: true }),
    }),
  },
);

describe('no level is ever over its cap, against PostgreSQL (property)', () => {
  test('random batches of concurrent admissions and settlements of three runs under a run, person and workspace cap', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(op, { minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 6 }),
        fc.record({
          run: fc.integer({ min: 300, max: 3_000 }),
          person: fc.integer({ min: 300, max: 4_000 }),
          workspace: fc.integer({ min: 300, max: 5_000 }),
        }),
        async (batches, caps) => {
          const seed = await seedWorkspace(h.api);
          const runs: CreatedRun[] = [];
          for (let i = 0; i < 3; i += 1)
            runs.push(await createRun(h.api, seed, { budget: { max_tokens: 10_000_000 } }));
          const budget = (body: Record<string, unknown>) =>
            expectStatus(
              h.api.call('POST', '/v1/budgets', {
                token: h.api.operatorKey,
                body: { workspace: seed.workspace, ...body },
              }),
              201,
            );
          await budget({
            level: 'run',
            run: runs[0]!.run_id,
            period: 'life',
            max_usd: `0.${String(caps.run).padStart(9, '0')}`,
          });
          await budget({
            level: 'person',
            person: seed.admin.user_id,
            period: 'day',
            max_tokens: caps.person,
          });
          await budget({
            level: 'workspace',
            period: 'month',
            max_usd: `0.${String(caps.workspace).padStart(9, '0')}`,
            max_tokens: caps.workspace,
          });

          const held: { session: string; request: string; booked: number }[] = [];
          let n = 0;
          for (const batch of batches) {
            await Promise.all(
              batch.map(async (o) => {
                if (o.kind === 'admit') {
                  const r = runs[o.run]!;
                  const requestId = `p${(n += 1)}`;
                  const { reservation } = await admitModelRequest(store.pool, {
                    runId: r.run_id,
                    sessionId: r.session_id,
                    requestId,
                    requestDigest: requestId,
                    model: 'm',
                    maxOutputTokens: o.output,
                    inputBoundTokens: o.input,
                    workspaceId: seed.workspace,
                    memberId: seed.admin.user_id,
                    providerKind: 'anthropic',
                    price,
                    bookedNanos: o.input + o.output,
                  });
                  if (reservation.status === 'held')
                    held.push({
                      session: r.session_id,
                      request: requestId,
                      booked: o.input + o.output,
                    });
                } else if (held.length > 0) {
                  const [hold] = held.splice(o.which % held.length, 1);
                  const spent = Math.floor(hold!.booked * o.share);
                  await reconcileModelRequest(store.pool, {
                    by: 'runner',
                    sessionId: hold!.session,
                    requestId: hold!.request,
                    inputTokens: spent,
                    outputTokens: 0,
                    costNanos: () => spent,
                  });
                }
              }),
            );
            const { rows } = await h.db.query(
              `select b.max_nanos, b.max_tokens, w.held_nanos, w.used_nanos, w.held_tokens, w.used_tokens
               from spend_budgets b join spend_budget_windows w on w.budget_id = b.id
               where b.workspace_id = $1`,
              [seed.workspace],
            );
            for (const w of rows) {
              if (w.max_nanos !== null)
                assert.ok(Number(w.used_nanos) + Number(w.held_nanos) <= Number(w.max_nanos));
              if (w.max_tokens !== null)
                assert.ok(Number(w.used_tokens) + Number(w.held_tokens) <= Number(w.max_tokens));
            }
          }
          // The counters are the sums of the holds still out and the costs settled under them.
          const { rows } = await h.db.query(
            `select w.budget_id, w.held_nanos, w.used_nanos,
               (select coalesce(sum(r.booked_nanos) filter (where r.status = 'held'), 0)
                  from model_reservation_holds hd join model_reservations r on r.id = hd.reservation_id
                  where hd.budget_id = w.budget_id)::bigint as holds,
               (select coalesce(sum(u.cost_nanos), 0)
                  from model_reservation_holds hd join model_usage u on u.external_id = hd.reservation_id
                  where hd.budget_id = w.budget_id)::bigint as costs
             from spend_budget_windows w join spend_budgets b on b.id = w.budget_id
             where b.workspace_id = $1`,
            [seed.workspace],
          );
          for (const w of rows) {
            assert.equal(Number(w.held_nanos), Number(w.holds));
            assert.equal(Number(w.used_nanos), Number(w.costs));
          }
        },
      ),
      { numRuns: 15 },
    );
  });
});
