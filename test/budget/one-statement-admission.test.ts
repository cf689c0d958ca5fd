/**
 * A model request of a run under no budget above its own is admitted in one statement, its own
 * transaction. What the statement must not change: a request that does not fit is refused, and
 * recorded, exactly as before; a run under a level above it is booked at that level, whatever
 * this process remembers of the run; a request id answered before books nothing.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { defaultPrices } from '../../src/domain/budget/pricing.js';
import { admitModelRequest } from '../../src/store/budget.js';
import { useHarness } from '../support/harness.js';
import { createRun, expectStatus, type CreatedRun } from '../support/seed.js';
import { watchStatements } from '../support/statements.js';
import { useStorePool } from '../support/store-pool.js';
import { budgetOf, eventsOf, reservationsOf } from './support.js';

const h = useHarness();
const store = useStorePool();

const price = defaultPrices.prices.find((p) => p.model === 'claude-haiku-4-5')!.price;

async function runSubject(runId: string) {
  const { rows } = await store.pool.query<{ workspace_id: string; invoked_by: string }>(
    'select workspace_id, invoked_by from runs where id = $1',
    [runId],
  );
  return rows[0]!;
}

let watched: string[] | undefined;

/** The statements sent from now on: one log for the file, emptied here. */
function statementsFromNow(): string[] {
  watched ??= watchStatements(store.pool);
  watched.length = 0;
  return watched;
}

/** A request booking `tokens` (one of input, the rest output). */
async function requestOf(run: CreatedRun, requestId: string, tokens: number) {
  const subject = await runSubject(run.run_id);
  return {
    runId: run.run_id,
    sessionId: run.session_id,
    workspaceId: subject.workspace_id,
    memberId: subject.invoked_by,
    requestId,
    requestDigest: `digest of ${requestId}`,
    model: 'claude-haiku-4-5',
    maxOutputTokens: tokens - 1,
    inputBoundTokens: 1,
    via: 'runner' as const,
    providerKind: 'anthropic' as const,
    price,
    bookedNanos: tokens * 1_000,
  };
}

/** Admits a request booking `tokens` through the store, with the statements it sent. */
async function admitTokens(run: CreatedRun, requestId: string, tokens: number) {
  const request = await requestOf(run, requestId, tokens);
  const sent = statementsFromNow();
  const admission = await admitModelRequest(store.pool, request);
  return { ...admission, statements: sent.splice(0) };
}

const transactionOf = (statements: string[]) => statements.some((s) => /^\s*begin\b/i.test(s));

describe('one statement admits a request that fits a run with no budget above it', () => {
  test('once the session head is known: one statement, no transaction; the hold, its event and the balance as the transaction would write them', async () => {
    const run = await createRun(h.api, h.seed, { budget: { max_tokens: 10_000 } });
    await admitTokens(run, 'learns-the-head', 100);
    const admitted = await admitTokens(run, 'r1', 1_000);
    assert.equal(admitted.statements.length, 1, admitted.statements.join('\n---\n'));
    assert.equal(transactionOf(admitted.statements), false);
    assert.equal(admitted.created, true);
    assert.equal(admitted.reservation.status, 'held');
    assert.equal(admitted.reservation.booked_tokens, 1_000);
    assert.equal(admitted.reservation.booked_nanos, 1_000_000);
    assert.equal((await budgetOf(store.pool, run.run_id)).held_tokens, 1_100);
    const events = await eventsOf(store.pool, run.session_id, 'model.reserved');
    assert.deepEqual(
      events.map((e) => [e.data.request_id, e.data.booked_tokens]),
      [
        ['learns-the-head', 100],
        ['r1', 1_000],
      ],
    );
    const verified = await expectStatus(
      h.api.call('GET', `/v1/sessions/${run.session_id}/events/verify`, {
        token: h.api.operatorKey,
      }),
      200,
    );
    assert.equal(verified.ok, true, JSON.stringify(verified));
  });

  test('the last token of the allowance is admitted in one statement; one token past it is refused by the transaction, recorded, and refused again', async () => {
    const run = await createRun(h.api, h.seed, { budget: { max_tokens: 2_000 } });
    await admitTokens(run, 'first', 500);
    const exact = await admitTokens(run, 'exact', 1_500);
    assert.equal(exact.reservation.status, 'held');
    assert.equal(transactionOf(exact.statements), false, exact.statements.join('\n---\n'));
    assert.equal((await budgetOf(store.pool, run.run_id)).held_tokens, 2_000);

    const over = await admitTokens(run, 'over', 2);
    assert.equal(over.reservation.status, 'refused');
    assert.equal(over.reservation.refused_by, 'run, life');
    assert.equal(over.created, true);
    assert.equal(transactionOf(over.statements), true);
    const again = await admitTokens(run, 'over', 2);
    assert.deepEqual(
      [again.reservation.status, again.created, again.reservation.id],
      ['refused', false, over.reservation.id],
    );
    assert.equal((await budgetOf(store.pool, run.run_id)).held_tokens, 2_000);
    const rows = await reservationsOf(store.pool, run.session_id);
    assert.deepEqual(rows.map((r) => [r.request_id, r.status]).sort(), [
      ['exact', 'held'],
      ['first', 'held'],
      ['over', 'refused'],
    ]);
    assert.equal((await eventsOf(store.pool, run.session_id, 'model.reserved')).length, 2);
  });

  test('a request id answered before gets its first answer and books nothing', async () => {
    const run = await createRun(h.api, h.seed, { budget: { max_tokens: 10_000 } });
    const first = await admitTokens(run, 'twice', 700);
    const second = await admitTokens(run, 'twice', 700);
    assert.deepEqual([first.created, second.created], [true, false]);
    assert.equal(second.reservation.id, first.reservation.id);
    assert.equal((await budgetOf(store.pool, run.run_id)).held_tokens, 700);
    assert.equal((await eventsOf(store.pool, run.session_id, 'model.reserved')).length, 1);
  });
});

describe('a run under a budget above its own is booked there, whatever the process remembers', () => {
  async function heldAtLevel(budgetId: string) {
    const { rows } = await store.pool.query<{ held_tokens: string }>(
      'select held_tokens from spend_budget_windows where budget_id = $1',
      [budgetId],
    );
    return rows.map((r) => Number(r.held_tokens));
  }

  test('a budget set after the run was admitted in one statement holds the next request; the run then goes to the transaction until the budget is removed', async () => {
    const run = await createRun(h.api, h.seed, { budget: { max_tokens: 10_000 } });
    await admitTokens(run, 'before', 100);
    const alone = await admitTokens(run, 'alone', 100);
    assert.equal(transactionOf(alone.statements), false);

    const budget = await expectStatus<{ id: string }>(
      h.api.call('POST', '/v1/budgets', {
        token: h.seed.admin.token,
        body: {
          workspace: h.seed.workspace,
          level: 'run',
          run: run.run_id,
          period: 'life',
          max_tokens: 1_000,
        },
      }),
      201,
    );
    // The process saw this run under no level: the statement itself finds the budget.
    const levelled = await admitTokens(run, 'levelled', 300);
    assert.equal(levelled.reservation.status, 'held');
    assert.equal(transactionOf(levelled.statements), true);
    assert.deepEqual(await heldAtLevel(budget.id), [300]);

    const next = await admitTokens(run, 'next', 300);
    assert.ok(/^\s*begin\b/i.test(next.statements[0] ?? ''), next.statements.join('\n---\n'));
    assert.deepEqual(await heldAtLevel(budget.id), [600]);
    const refused = await admitTokens(run, 'past-the-level', 500);
    assert.equal(refused.reservation.status, 'refused');
    assert.equal(refused.reservation.refused_by, 'run, life');
    assert.deepEqual(await heldAtLevel(budget.id), [600]);

    await expectStatus(
      h.api.call('DELETE', `/v1/budgets/${budget.id}`, { token: h.seed.admin.token }),
      204,
    );
    await admitTokens(run, 'learns-it-is-gone', 100);
    const freed = await admitTokens(run, 'freed', 100);
    assert.equal(freed.statements.length, 1, freed.statements.join('\n---\n'));
    assert.equal((await budgetOf(store.pool, run.run_id)).held_tokens, 1_000);
  });
});

test('requests of one run racing in one process never hold past the allowance: each fitting one admitted by its one statement, queued on the run inside PostgreSQL, the rest refused by the transaction', async () => {
  const run = await createRun(h.api, h.seed, { budget: { max_tokens: 5_000 } });
  await admitTokens(run, 'learns-the-head', 200);
  const requests = await Promise.all(
    Array.from({ length: 40 }, (_, i) => requestOf(run, `race-${String(i)}`, 300)),
  );
  const sent = statementsFromNow();
  const answers = await Promise.all(requests.map((r) => admitModelRequest(store.pool, r)));
  const held = answers.filter((a) => a.reservation.status === 'held').length;
  assert.equal(held, 16);
  assert.equal((await budgetOf(store.pool, run.run_id)).held_tokens, 200 + held * 300);
  // One statement each; the 24 it could not admit each a transaction: begin, the lock, the
  // refusal, commit.
  const oneStatements = sent.filter((s) =>
    s.includes('select used_tokens, held_tokens, max_tokens'),
  );
  assert.equal(oneStatements.length, 40);
  assert.equal(sent.filter((s) => /^\s*begin\b/i.test(s)).length, 24);
  assert.ok(sent.length <= 40 + 24 * 4 + 5, `${String(sent.length)} statements for 40 requests`);
});
