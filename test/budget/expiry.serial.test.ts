/**
 * Sweeps here expire every hold in the database older than a moment, so these tests look only
 * at their own sessions.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { expireStaleReservations, startReservationSweeper } from '../../src/store/budget.js';
import { createRun, expectStatus } from '../support/seed.js';
import {
  admit,
  boundOf,
  budgetOf,
  eventsOf,
  modelInput,
  modelRequest,
  reportUsage,
  reservationsOf,
  usageOf,
} from './support.js';
import { useHarness } from '../support/harness.js';
import { useStorePool } from '../support/store-pool.js';

const h = useHarness();
const store = useStorePool(30);

const input = modelInput();
const inputBound = boundOf(input);

describe('reservations never settled expire, charged at their booking', () => {
  test('the sweep expires a stale hold once, charging its booking (spend never learned counts as the worst case, never zero), with several sweepers at once', async () => {
    const run = await createRun(h.api, h.seed, { budget: { max_tokens: 100_000 } });
    for (const id of ['e1', 'e2', 'e3'])
      await expectStatus(admit(h.api, run, modelRequest(id, 1_000)), 201);
    // Not stale yet: a sweep with a long deadline leaves every hold alone.
    await expireStaleReservations(store.pool, { expireAfterMs: 60_000 });
    assert.equal((await budgetOf(h.db, run.run_id)).held_tokens, 3 * (1_000 + inputBound));

    await Promise.all(
      Array.from({ length: 6 }, () => expireStaleReservations(store.pool, { expireAfterMs: 0 })),
    );
    const rows = await reservationsOf(h.db, run.session_id);
    assert.deepEqual(
      rows.map((r) => r.status),
      ['expired', 'expired', 'expired'],
    );
    for (const row of rows) {
      assert.ok(row.expired_at instanceof Date);
      assert.equal(Number(row.expiry_charged_tokens), 1_000 + inputBound);
    }
    assert.deepEqual(await budgetOf(h.db, run.run_id), {
      max_tokens: 100_000,
      held_tokens: 0,
      used_tokens: 3 * (1_000 + inputBound),
    });
    const expired = await eventsOf(h.db, run.session_id, 'model.expired');
    assert.deepEqual(
      expired
        .map((e) => e.data)
        .sort((a, b) => String(a.request_id).localeCompare(String(b.request_id))),
      ['e1', 'e2', 'e3'].map((id) => ({
        request_id: id,
        released_tokens: 1_000 + inputBound,
        charged_tokens: 1_000 + inputBound,
        // Its worst case in money too: the bound at Sonnet 4.5's dearest input, the output at $15.
        charged_nanos: inputBound * 3_750 + 1_000 * 15_000,
      })),
    );

    await expireStaleReservations(store.pool, { expireAfterMs: 0 });
    assert.equal((await eventsOf(h.db, run.session_id, 'model.expired')).length, 3);
  });

  test('a late report after expiry reconciles exactly once: the real usage replaces the charge, nothing released or counted twice', async () => {
    const run = await createRun(h.api, h.seed, { budget: { max_tokens: 100_000 } });
    await expectStatus(admit(h.api, run, modelRequest('late', 2_000)), 201);
    await expireStaleReservations(store.pool, { expireAfterMs: 0 });
    assert.deepEqual(await budgetOf(h.db, run.run_id), {
      max_tokens: 100_000,
      held_tokens: 0,
      used_tokens: 2_000 + inputBound,
    });

    const usage = { input_tokens: 70, output_tokens: 700 };
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => reportUsage(h.api, run, 'late', usage)),
    );
    for (const answer of answers) {
      assert.equal(answer.status, 200);
      assert.deepEqual(answer.body, answers[0]!.body);
    }
    assert.equal(answers[0]!.body.released_tokens, 0);
    assert.equal(answers[0]!.body.used_tokens, 770);
    const again = await expectStatus(reportUsage(h.api, run, 'late', usage), 200);
    assert.deepEqual(again, answers[0]!.body);

    assert.deepEqual(await budgetOf(h.db, run.run_id), {
      max_tokens: 100_000,
      held_tokens: 0,
      used_tokens: 770,
    });
    assert.equal((await usageOf(h.db, run.session_id)).length, 1);
    const [row] = await reservationsOf(h.db, run.session_id);
    assert.equal(row.status, 'reconciled');
    assert.ok(row.expired_at <= row.reconciled_at);
    const events = (await eventsOf(h.db, run.session_id)).filter((e) =>
      e.type.startsWith('model.'),
    );
    assert.deepEqual(
      events.map((e) => e.type),
      ['model.reserved', 'model.expired', 'model.reconciled'],
    );
    assert.equal(events[2]!.data.replaced_charge_tokens, 2_000 + inputBound);
  });

  test('a sweep racing the reports: every hold is released exactly once and all usage counted, each charge replaced by its report', async () => {
    const run = await createRun(h.api, h.seed, { budget: { max_tokens: 1_000_000 } });
    const ids = Array.from({ length: 30 }, (_, i) => `race${i}`);
    for (const id of ids) await expectStatus(admit(h.api, run, modelRequest(id, 500)), 201);
    const usage = { input_tokens: 10, output_tokens: 20 };
    await Promise.all([
      ...ids.map((id) => expectStatus(reportUsage(h.api, run, id, usage), 200)),
      expireStaleReservations(store.pool, { expireAfterMs: 0 }),
      expireStaleReservations(store.pool, { expireAfterMs: 0 }),
    ]);
    assert.deepEqual(await budgetOf(h.db, run.run_id), {
      max_tokens: 1_000_000,
      held_tokens: 0,
      used_tokens: 30 * 30,
    });
    const rows = await usageOf(h.db, run.session_id);
    assert.equal(rows.length, 30);
    const expired = (await eventsOf(h.db, run.session_id, 'model.expired')).length;
    const releasedByUsage = rows.filter((r) => r.released_tokens > 0).length;
    assert.equal(expired + releasedByUsage, 30);
  });

  test('the sweeper started with the worker expires stale holds on its own and stops cleanly', async () => {
    const run = await createRun(h.api, h.seed, { budget: { max_tokens: 100_000 } });
    await expectStatus(admit(h.api, run, modelRequest('swept', 100)), 201);
    const errors: unknown[] = [];
    const stop = startReservationSweeper(store.pool, {
      intervalMs: 50,
      expireAfterMs: 200,
      onError: (err) => errors.push(err),
    });
    try {
      const deadline = Date.now() + 5_000;
      while ((await reservationsOf(h.db, run.session_id))[0].status === 'held') {
        assert.ok(Date.now() < deadline, 'the sweeper did not expire the hold in 5 s');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      await stop();
    }
    assert.deepEqual(errors, []);
    assert.deepEqual(await budgetOf(h.db, run.run_id), {
      max_tokens: 100_000,
      held_tokens: 0,
      used_tokens: 100 + inputBound,
    });
  });
});
