/**
 * A hold's expiry at every level it was booked at. The sweep here expires every hold in the
 * database older than a moment, so this file looks only at its own workspace.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { costOf, defaultPrices, worstCaseCost } from '../../src/domain/budget/pricing.js';
import { expireStaleReservations } from '../../src/store/budget.js';
import { createRun, expectStatus } from '../support/seed.js';
import { admit, boundOf, modelInput, modelRequest, reportUsage } from './support.js';
import { useHarness } from '../support/harness.js';
import { useStorePool } from '../support/store-pool.js';

const h = useHarness();
const store = useStorePool(5);
const sonnet = defaultPrices.prices.find((p) => p.model === 'claude-sonnet-4-5')!.price;
const inputBound = boundOf(modelInput());

async function levels() {
  const { rows } = await h.db.query(
    `select b.level, w.held_nanos, w.used_nanos, w.held_tokens, w.used_tokens
     from spend_budgets b join spend_budget_windows w on w.budget_id = b.id
     where b.workspace_id = $1 order by b.level`,
    [h.seed.workspace],
  );
  return rows.map((r) => ({
    level: r.level as string,
    held_nanos: Number(r.held_nanos),
    used_nanos: Number(r.used_nanos),
    held_tokens: Number(r.held_tokens),
    used_tokens: Number(r.used_tokens),
  }));
}

describe('a hold never outlives its request plus the sweep, at any level', () => {
  test('the sweep charges an unsettled hold its worst case at every level it was booked at; a late report replaces the charge with the real cost there too', async () => {
    const run = await createRun(h.api, h.seed, { budget: { max_tokens: 100_000 } });
    const op = { token: h.api.operatorKey };
    const ws = h.seed.workspace;
    for (const body of [
      { level: 'run', run: run.run_id, period: 'life', max_usd: '10' },
      { level: 'person', person: h.seed.admin.user_id, period: 'day', max_usd: '10' },
      { level: 'workspace', period: 'month', max_usd: '10', max_tokens: 1_000_000 },
    ])
      await expectStatus(
        h.api.call('POST', '/v1/budgets', { ...op, body: { workspace: ws, ...body } }),
        201,
      );

    await expectStatus(admit(h.api, run, modelRequest('late', 1_000)), 201);
    const worst = worstCaseCost(sonnet, { inputBoundTokens: inputBound, maxOutputTokens: 1_000 });
    const tokens = inputBound + 1_000;
    for (const level of await levels())
      assert.deepEqual(level, {
        level: level.level,
        held_nanos: worst,
        used_nanos: 0,
        held_tokens: tokens,
        used_tokens: 0,
      });

    await expireStaleReservations(store.pool, { expireAfterMs: 0 });
    for (const level of await levels())
      assert.deepEqual(level, {
        level: level.level,
        held_nanos: 0,
        used_nanos: worst,
        held_tokens: 0,
        used_tokens: tokens,
      });

    await expectStatus(
      reportUsage(h.api, run, 'late', { input_tokens: 50, output_tokens: 70 }),
      200,
    );
    const cost = costOf(sonnet, { input: 50, cache_write: 0, cache_read: 0, output: 70 });
    const after = await levels();
    assert.equal(after.length, 3);
    for (const level of after)
      assert.deepEqual(level, {
        level: level.level,
        held_nanos: 0,
        used_nanos: cost,
        held_tokens: 0,
        used_tokens: 120,
      });
    const { rows } = await h.db.query(
      'select held_nanos, used_nanos from run_budgets where run_id = $1',
      [run.run_id],
    );
    assert.deepEqual(
      rows.map((r) => [Number(r.held_nanos), Number(r.used_nanos)]),
      [[0, cost]],
    );
  });
});
