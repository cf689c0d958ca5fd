/** Stops PostgreSQL for a moment: a cluster of the file's own, so the run's shared one stays up. */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'vitest';
import { startTestApi } from '../support/api.js';
import { ownPostgresCluster } from '../support/own-postgres.js';
import {
  createRun,
  defaultPolicy,
  expectStatus,
  seedWorkspace,
  toolCall,
} from '../support/seed.js';
import { startWorkerProcess } from '../support/worker-processes.js';

test('PostgreSQL briefly down: calls answer 503 (never 500) while it is away, a call in flight still gets exactly one decision, and all works after', async () => {
  const postgres = await ownPostgresCluster();
  const db = { pool: postgres.pool(4) };
  const taskQueue = `pg-down-${randomUUID()}`;
  const api = await startTestApi({ databaseUrl: postgres.url, temporal: { taskQueue } });
  // The stages stall, so the call is in flight when PostgreSQL goes away.
  const worker = await startWorkerProcess(
    'worker-pg',
    { GATE_TASK_QUEUE: taskQueue, DATABASE_URL: postgres.url },
    { faults: { delayMs: { decide: 1500 } } },
  );
  try {
    const seed = await seedWorkspace(api, {
      ...defaultPolicy,
      rules: [{ id: 'all', match: {}, verdict: 'allow' }],
    });
    const run = await createRun(api, seed);
    const inFlight = toolCall(api, run, 'c1', { tool: 'Read', arguments: { file_path: 'a' } });
    await new Promise((r) => setTimeout(r, 500));
    await postgres.stop('fast');
    const whileDown = await toolCall(api, run, 'c2', {
      tool: 'Read',
      arguments: { file_path: 'b' },
    });
    assert.equal(whileDown.status, 503);
    assert.match(whileDown.headers.get('content-type') ?? '', /problem\+json/);
    const ready = await api.call('GET', '/readyz');
    assert.equal(ready.status, 503);
    // Anyone may ask: what is down, never the driver's error text.
    assert.equal(ready.body.postgres, 'down');
    await new Promise((r) => setTimeout(r, 2_000));
    await postgres.start();

    const first = await inFlight;
    assert.ok([200, 503].includes(first.status), JSON.stringify(first.body));
    const settled = await expectStatus(
      api.call('GET', `/v1/sessions/${run.session_id}/tool-calls/c1?wait=60`, {
        token: run.session_token,
      }),
      200,
    );
    assert.ok(['allow', 'deny'].includes(settled.decision));
    const { rows } = await db.pool.query<{ n: number }>(
      `select count(*)::int as n from ledger_events where stream_id = $1 and type = 'tool.decision'`,
      [run.session_id],
    );
    assert.equal(rows[0]!.n, 1);
    const after = await expectStatus(
      toolCall(api, run, 'c3', { tool: 'Read', arguments: { file_path: 'c' } }),
      200,
    );
    assert.equal(after.decision, 'allow');
  } finally {
    await worker.stop();
    await api.close();
    await db.pool.end();
    await postgres.close();
  }
});
