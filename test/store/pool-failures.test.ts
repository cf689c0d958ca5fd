/**
 * What a PostgreSQL connection failing under a caller does to the pool: never the process, never
 * the next caller. Each test has pools of its own, one connection each, so a connection handed
 * out again would show.
 */
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'vitest';
import {
  createPool,
  isUnavailableError,
  withTransaction,
  type PostgresBounds,
} from '../../src/store/pool.js';
import { testConfig } from '../support/env.js';

async function withPool<T>(
  bounds: PostgresBounds,
  use: (pool: ReturnType<typeof createPool>) => Promise<T>,
) {
  const pool = createPool(testConfig().databaseUrl, { max: 1, ...bounds });
  try {
    return await use(pool);
  } finally {
    await pool.end();
  }
}

const backendPid = async (db: { query: ReturnType<typeof createPool>['query'] }) =>
  (await db.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;

test('a connection terminated in the middle of a transaction (PostgreSQL restarting) fails it as unavailable; the process lives on, and the next caller gets a fresh connection', async () => {
  await withPool({}, async (pool) => {
    let killed = 0;
    const failed = await withTransaction(pool, async (tx) => {
      killed = await backendPid(tx);
      await withPool({}, (other) => other.query('select pg_terminate_backend($1)', [killed]));
      // No query runs while the termination arrives: the client emits 'error', which unhandled
      // would end the process.
      await sleep(300);
      await tx.query('select 1');
    }).catch((err: unknown) => err);
    assert.ok(isUnavailableError(failed), String(failed));
    assert.notEqual(await backendPid(pool), killed);
  });
});

test('a query that outlives the client-side bound is given up at the bound, and its connection discarded: the next caller does not wait behind it', async () => {
  await withPool({ queryMs: 300 }, async (pool) => {
    const stuck = await backendPid(pool);
    const started = performance.now();
    const failed = await withTransaction(pool, (tx) => tx.query('select pg_sleep(5)')).catch(
      (err: unknown) => err,
    );
    assert.ok(isUnavailableError(failed), String(failed));
    const next = await backendPid(pool);
    // The sleep runs on for seconds on the server; the bound, and a new connection, take less.
    assert.ok(performance.now() - started < 3_000, `${performance.now() - started} ms`);
    assert.notEqual(next, stuck);
  });
});

test('a statement past the server-side bound is cancelled by PostgreSQL and answered as unavailable', async () => {
  await withPool({ statementMs: 200, queryMs: 5_000 }, async (pool) => {
    const started = performance.now();
    const failed = await pool.query('select pg_sleep(5)').catch((err: unknown) => err);
    assert.equal((failed as { code?: string }).code, '57014');
    assert.ok(isUnavailableError(failed));
    assert.ok(performance.now() - started < 3_000, `${performance.now() - started} ms`);
  });
});

test("a server error whose message quotes the caller's value is never read as an outage", async () => {
  await withPool({}, async (pool) => {
    const failed = await pool.query('select $1::uuid', ['Connection terminated']).then(
      () => undefined,
      (err: unknown) => err,
    );
    assert.ok(failed instanceof Error && /Connection terminated/.test(failed.message));
    assert.equal(isUnavailableError(failed), false, 'a wrong value is not PostgreSQL away');
  });
});
