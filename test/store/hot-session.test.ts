/**
 * A burst of writes on one session holds a few connections of the pool, not all of them: the
 * rest wait their turn in the process, and another session's writes go on meanwhile. Each write
 * of the burst is recorded once, with its event.
 */
import assert from 'node:assert/strict';
import { test } from 'vitest';
import { asRunId, asSessionId, asToolCallId } from '../../src/domain/gate/ids.js';
import { readStreamHead } from '../../src/store/ledger.js';
import { createPool } from '../../src/store/pool.js';
import { keysInTurn, turnsAtOnce } from '../../src/store/row-turns.js';
import { recordToolCallRequest } from '../../src/store/tool-calls.js';
import { useHarness } from '../support/harness.js';
import { testConfig } from '../support/env.js';
import { createRun, type CreatedRun } from '../support/seed.js';
import { useStorePool } from '../support/store-pool.js';

const h = useHarness();
const store = useStorePool();

const callOf = (run: CreatedRun, id: string) => ({
  sessionId: asSessionId(run.session_id),
  toolCallId: asToolCallId(id),
  runId: asRunId(run.run_id),
  tool: 'Read',
  arguments: { file_path: id },
  execute: false,
  requestDigest: `digest of ${id}`,
  frozen: true,
  awaitsResult: false,
});

test("20 writes of one session stuck behind its ledger head's lock hold turnsAtOnce of a pool's connections; another session's write is recorded meanwhile; each is recorded once when the lock goes", async () => {
  const hot = await createRun(h.api, h.seed);
  const other = await createRun(h.api, h.seed);
  // A pool smaller than the burst: without turns the burst takes every connection, and the other
  // session's write waits out the connection bound (2 s) and fails.
  const pool = createPool(testConfig().databaseUrl, { max: turnsAtOnce + 2, connectMs: 2_000 });
  const holder = await store.pool.connect();
  try {
    const before = await readStreamHead(store.pool, hot.session_id);
    await holder.query('begin');
    await holder.query('select 1 from ledger_streams where stream_id = $1 for update', [
      hot.session_id,
    ]);
    const burst = Array.from({ length: 20 }, (_, i) =>
      recordToolCallRequest(pool, callOf(hot, `burst-${String(i)}`)),
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(pool.totalCount - pool.idleCount, turnsAtOnce, 'connections the burst holds');
    assert.equal(pool.waitingCount, 0, 'writes waiting for a connection');

    const started = Date.now();
    const recorded = await recordToolCallRequest(pool, callOf(other, 'meanwhile'));
    assert.equal(recorded.tool_call_id, 'meanwhile');
    assert.ok(Date.now() - started < 2_000, `the other session waited ${Date.now() - started} ms`);

    await holder.query('commit');
    const rows = await Promise.all(burst);
    assert.deepEqual(
      rows.map((row) => row.tool_call_id),
      rows.map((_, i) => `burst-${String(i)}`),
    );
    const { rows: events } = await store.pool.query<{ id: string }>(
      `select data->>'tool_call_id' as id from ledger_events
       where stream_id = $1 and type = 'tool.requested' order by data->>'tool_call_id'`,
      [hot.session_id],
    );
    assert.deepEqual(
      events.map((e) => e.id),
      rows.map((_, i) => `burst-${String(i)}`).sort(),
    );
    const after = await readStreamHead(store.pool, hot.session_id);
    assert.equal(after?.seq, (before?.seq ?? 0) + 20);
    assert.equal(keysInTurn(), 0);
  } finally {
    await holder.query('rollback').catch(() => undefined);
    holder.release();
    await pool.end();
  }
});
