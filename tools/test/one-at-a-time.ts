/**
 * Runs before each file of the serial project (vitest.config.ts), after ./services-ready.ts: the
 * file holds a lock on the shared PostgreSQL around all of it (its hooks, tests and fixtures), so
 * serial files run one at a time while the outage files, which stop services of their own, run
 * beside them. The lock is a session's advisory lock, released when its connection ends: after
 * the file whatever it threw, or when its process dies.
 */
import pg from 'pg';
import { aroundAll } from 'vitest';

/** The lock's key, the same in every test process of the run (the run's PostgreSQL is its own). */
const serialFiles = 0x5e7a1;

/** The serial files before this one take about a minute on a machine running two suites. */
const waitBoundMs = 5 * 60_000;

aroundAll(async (runFile) => {
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  try {
    // The wait gives up by itself before the hook's bound: no lock is taken after the file failed.
    await client.query(`set lock_timeout = ${String(waitBoundMs - 30_000)}`);
    await client.query('select pg_advisory_lock($1)', [serialFiles]);
    await runFile();
  } finally {
    await client.end();
  }
}, waitBoundMs);
