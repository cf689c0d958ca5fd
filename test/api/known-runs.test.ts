import assert from 'node:assert/strict';
import pg from 'pg';
import { afterAll, beforeAll, describe, test, vi } from 'vitest';
import { hashToken } from '../../src/application/tokens.js';
import { findModelCallerBySessionTokenHash } from '../../src/store/model-callers.js';
import { findRunBySessionTokenHash, KnownRuns } from '../../src/store/runs.js';
import { createProvider } from '../model/support.js';
import { testConfig } from '../support/env.js';
import { useHarness } from '../support/harness.js';
import { createRun, expectStatus } from '../support/seed.js';

/**
 * A runner's requests read its frozen run once per process (`KnownRuns`): it never changes. What
 * may change, whether the run still acts and its model provider, is read on every request.
 */
const h = useHarness();
let db: pg.Pool;

beforeAll(() => {
  db = new pg.Pool({ connectionString: testConfig().databaseUrl, max: 2 });
});
afterAll(async () => {
  await db.end();
});

/** The rows each query sent through `db` answered, in order. */
function answeredRows() {
  const query = vi.spyOn(db, 'query');
  return {
    async rows(): Promise<Record<string, unknown>[][]> {
      const results = query.mock.results.map((r) => r.value as Promise<pg.QueryResult>);
      return (await Promise.all(results)).map((result) => result.rows);
    },
    restore: () => {
      query.mockRestore();
    },
  };
}

describe('the frozen runs a process keeps', () => {
  test('the first request reads the whole run, the next only its id; a revoked run is refused though it is kept', async () => {
    const run = await createRun(h.api, h.seed);
    const tokenHash = hashToken(run.session_token);
    const known = new KnownRuns();
    const spy = answeredRows();
    try {
      const first = await findRunBySessionTokenHash(db, tokenHash, known);
      const again = await findRunBySessionTokenHash(db, tokenHash, known);
      assert.ok(first, 'the run is found');
      assert.equal(first.id, run.run_id);
      assert.ok(first.toolset.length > 0, 'the run froze tools');
      assert.equal(again, first, 'the kept run, not another read of it');
      const [whole, idOnly] = await spy.rows();
      assert.ok(whole?.[0] && 'toolset' in whole[0], 'the first read has the tool set');
      assert.deepEqual(idOnly, [{ id: run.run_id }], 'the second read has the id alone');
    } finally {
      spy.restore();
    }

    await expectStatus(
      h.api.call('POST', `/v1/runs/${run.run_id}/revoke`, { token: h.api.operatorKey }),
      200,
    );
    assert.equal(known.get(tokenHash)?.id, run.run_id, 'still kept');
    assert.equal(await findRunBySessionTokenHash(db, tokenHash, known), undefined);
  });

  test("a model caller's run is kept, its provider read on every request: a removed provider shows at once", async () => {
    const provider = await createProvider(h.api, h.seed, 'http://127.0.0.1:9/');
    const run = await createRun(h.api, h.seed, { model_provider: provider.id });
    const tokenHash = hashToken(run.session_token);
    const known = new KnownRuns();
    const first = await findModelCallerBySessionTokenHash(db, tokenHash, known);
    assert.ok(first?.provider, 'the run has its provider');
    assert.equal(first.provider.removed_at, null);
    await expectStatus(
      h.api.call('DELETE', `/v1/model-providers/${provider.id}`, { token: h.api.operatorKey }),
      200,
    );
    const again = await findModelCallerBySessionTokenHash(db, tokenHash, known);
    assert.ok(again?.provider, 'the run still has its provider');
    assert.equal(again.run, first.run, 'the kept run');
    assert.ok(again.provider.removed_at, 'the provider as it is now: removed');
  });

  test('a token kept for one run never answers for another, and the oldest run goes first past the bound', async () => {
    const [a, b] = await Promise.all([createRun(h.api, h.seed), createRun(h.api, h.seed)]);
    const [hashA, hashB] = [hashToken(a.session_token), hashToken(b.session_token)];
    const known = new KnownRuns(1);
    const runA = await findRunBySessionTokenHash(db, hashA, known);
    const runB = await findRunBySessionTokenHash(db, hashB, known);
    assert.equal(runA?.id, a.run_id);
    assert.equal(runB?.id, b.run_id);
    assert.equal(known.get(hashA), undefined, 'a left for b');
    assert.equal(known.get(hashB), runB);
    // Were b's token ever kept with a's run, the read's id tells them apart: refused, forgotten.
    assert.ok(runA);
    const mixed = new KnownRuns();
    mixed.keep(hashB, runA);
    assert.equal(await findRunBySessionTokenHash(db, hashB, mixed), undefined);
    assert.equal(mixed.get(hashB), undefined);
    mixed.keep(hashB, runA);
    assert.equal(await findModelCallerBySessionTokenHash(db, hashB, mixed), undefined);
    assert.equal(mixed.get(hashB), undefined);
  });

  test('a kept run is frozen, and leaves once its run is refused; tool sets past the size bound are not kept', async () => {
    const run = await createRun(h.api, h.seed);
    const tokenHash = hashToken(run.session_token);
    const known = new KnownRuns();
    const kept = await findRunBySessionTokenHash(db, tokenHash, known);
    assert.ok(kept && Object.isFrozen(kept) && Object.isFrozen(kept.toolset[0]));
    await expectStatus(
      h.api.call('POST', `/v1/runs/${run.run_id}/revoke`, { token: h.api.operatorKey }),
      200,
    );
    assert.equal(await findRunBySessionTokenHash(db, tokenHash, known), undefined);
    assert.equal(known.get(tokenHash), undefined, 'forgotten once refused');

    const other = await createRun(h.api, h.seed);
    const small = new KnownRuns(1_000, 100);
    assert.equal(
      (await findRunBySessionTokenHash(db, hashToken(other.session_token), small))?.id,
      other.run_id,
    );
    assert.equal(small.get(hashToken(other.session_token)), undefined, 'too large to keep');
  });
});
