/**
 * An admission's reservation, its holds and model.reserved are written in one statement once the
 * session's ledger has a head, and a request id answered before is read back
 * only when its insert adds nothing: however many attempts race, and whatever else moves the
 * session's ledger, one reservation, one hold, one event, and every attempt told the first answer.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { defaultPrices, worstCaseCost } from '../../src/domain/budget/pricing.js';
import { ChainVerifier } from '../../src/domain/ledger/hash-chain.js';
import { admitModelRequest } from '../../src/store/budget.js';
import { readChainedEvents, readStreamHead } from '../../src/store/ledger.js';
import { useHarness } from '../support/harness.js';
import { createRun, toolCall, type CreatedRun } from '../support/seed.js';
import { useStorePool } from '../support/store-pool.js';
import { budgetOf, eventsOf, reservationsOf } from './support.js';

const h = useHarness();
const store = useStorePool();
const haiku = defaultPrices.prices.find((p) => p.model === 'claude-haiku-4-5')!.price;

function admission(run: CreatedRun, requestId: string) {
  const tokens = { inputBoundTokens: 100, maxOutputTokens: 50 };
  return admitModelRequest(store.pool, {
    runId: run.run_id,
    sessionId: run.session_id,
    requestId,
    requestDigest: `digest-${requestId}`,
    model: 'claude-haiku-4-5',
    ...tokens,
    workspaceId: h.seed.workspace,
    memberId: h.seed.admin.user_id,
    providerKind: 'anthropic',
    price: haiku,
    bookedNanos: worstCaseCost(haiku, tokens),
  });
}

async function chainVerifies(stream: string): Promise<boolean> {
  const verifier = new ChainVerifier();
  for (const event of await readChainedEvents(store.pool, stream, 0, 1000)) {
    if (!verifier.check({ ...event, stream_id: stream })) return false;
  }
  return verifier.verdict(await readStreamHead(store.pool, stream)).ok;
}

describe('a model request admitted once, whichever path each attempt takes', () => {
  test('eight attempts of one request id at once: one reservation, one hold, one model.reserved, every attempt told the first answer', async () => {
    const run = await createRun(h.api, h.seed, { budget: { max_tokens: 10_000 } });
    const answers = await Promise.all(Array.from({ length: 8 }, () => admission(run, 'r-raced')));
    assert.equal(answers.filter((answer) => answer.created).length, 1);
    assert.ok(answers.every((answer) => answer.reservation.status === 'held'));
    assert.equal(new Set(answers.map((answer) => answer.reservation.created_at.getTime())).size, 1);
    assert.equal((await reservationsOf(h.db, run.session_id)).length, 1);
    assert.equal((await budgetOf(h.db, run.run_id)).held_tokens, 150);
    assert.equal((await eventsOf(h.db, run.session_id, 'model.reserved')).length, 1);
    assert.ok(await chainVerifies(run.session_id));
  });

  test("another process moving the session's ledger between admissions: each books once, with its event, and the chain verifies", async () => {
    const run = await createRun(h.api, h.seed, { budget: { max_tokens: 10_000 } });
    for (const n of [1, 2, 3]) {
      assert.equal((await admission(run, `r-${String(n)}`)).created, true);
      // The API appends tool.requested and its decision between the admissions.
      await toolCall(h.api, run, `c-${String(n)}`, { tool: 'Read', arguments: { file_path: 'a' } });
    }
    assert.equal((await admission(run, 'r-1')).created, false);
    assert.equal((await budgetOf(h.db, run.run_id)).held_tokens, 450);
    assert.equal((await eventsOf(h.db, run.session_id, 'model.reserved')).length, 3);
    assert.equal((await eventsOf(h.db, run.session_id, 'tool.requested')).length, 3);
    assert.ok(await chainVerifies(run.session_id));
  });

  test('admissions of a run at once with its revocation: the run is locked before the ledger head by both, so neither waits on the other in a cycle', async () => {
    const run = await createRun(h.api, h.seed, { budget: { max_tokens: 10_000 } });
    // The session's ledger has its head: the one-statement path.
    await admission(run, 'r-first');
    // As a revocation takes them: the run's row, then (the admissions queued meanwhile) the head.
    const revocation = await store.pool.connect();
    try {
      await revocation.query('begin');
      await revocation.query('select 1 from runs where id = $1 for update', [run.run_id]);
      const admissions = Promise.all(['r-1', 'r-2', 'r-3'].map((id) => admission(run, id)));
      admissions.catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 300));
      await revocation.query('select 1 from ledger_streams where stream_id = $1 for update', [
        run.session_id,
      ]);
      await revocation.query('commit');
      assert.ok((await admissions).every((answer) => answer.created));
    } finally {
      revocation.release();
    }
    assert.equal((await eventsOf(h.db, run.session_id, 'model.reserved')).length, 4);
    assert.ok(await chainVerifies(run.session_id));
  });
});
