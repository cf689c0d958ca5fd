/**
 * A proxied request's settlement waits out a pool that a burst of admissions holds: it is tried
 * again until a connection frees, not given up after a few tries (which left the hold to the
 * expiry sweep, minutes later, while a person's spend showed it).
 */
import assert from 'node:assert/strict';
import { test } from 'vitest';
import { settleExchange } from '../../src/api/model-exchange.js';
import type { ApiContext } from '../../src/api/context.js';
import { defaultPrices } from '../../src/domain/budget/pricing.js';
import { emptyReport } from '../../src/domain/budget/upstream-usage.js';
import { admitModelRequest } from '../../src/store/budget.js';
import { createPool } from '../../src/store/pool.js';
import { budgetOf } from '../budget/support.js';
import { testConfig } from '../support/env.js';
import { useHarness } from '../support/harness.js';
import { createRun } from '../support/seed.js';

const h = useHarness();

test('a settlement whose pool has no free connection for seconds settles once one frees', async () => {
  const run = await createRun(h.api, h.seed, { budget: { max_tokens: 10_000 } });
  const { rows } = await h.db.query<{ workspace_id: string; invoked_by: string }>(
    'select workspace_id, invoked_by from runs where id = $1',
    [run.run_id],
  );
  const subject = rows[0]!;
  const { reservation } = await admitModelRequest(h.db, {
    runId: run.run_id,
    sessionId: run.session_id,
    workspaceId: subject.workspace_id,
    memberId: subject.invoked_by,
    requestId: 'starved',
    requestDigest: 'digest',
    model: 'claude-haiku-4-5',
    maxOutputTokens: 999,
    inputBoundTokens: 1,
    via: 'proxy',
    providerKind: 'anthropic',
    price: defaultPrices.prices.find((p) => p.model === 'claude-haiku-4-5')!.price,
    bookedNanos: 1_000,
  });
  assert.equal((await budgetOf(h.db, run.run_id)).held_tokens, 1_000);

  // One connection, waited for 300 ms at a time, held by another for 2.5 s: three tries (the
  // old bound) would all have found it taken.
  const pool = createPool(testConfig().databaseUrl, { max: 1, connectMs: 300 });
  const failures: unknown[] = [];
  const holder = await pool.connect();
  let held = true;
  const release = () => {
    if (held) holder.release();
    held = false;
  };
  const freed = setTimeout(release, 2_500);
  try {
    const started = Date.now();
    await settleExchange(
      {
        settlements: pool,
        metrics: {
          modelSpend: { inc: () => undefined },
          modelSettlementFailures: { inc: (labels: unknown) => failures.push(labels) },
        } as unknown as ApiContext['metrics'],
      },
      { log: { error: (...args: unknown[]) => failures.push(args) } as never },
      subject.workspace_id,
      reservation,
      {
        billing: 'not_billed',
        report: emptyReport(),
        facts: { outcome: 'ok', upstream_status: 200, upstream_request_id: null, latency_ms: 1 },
      },
    );
    assert.deepEqual(failures, []);
    assert.ok(Date.now() - started >= 2_000, 'settled before the connection was freed');
  } finally {
    clearTimeout(freed);
    release();
    await pool.end();
  }
  const settled = await h.db.query<{ status: string }>(
    'select status from model_reservations where id = $1',
    [reservation.id],
  );
  assert.equal(settled.rows[0]?.status, 'reconciled');
  assert.equal((await budgetOf(h.db, run.run_id)).held_tokens, 0);
});
