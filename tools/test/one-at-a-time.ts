/**
 * Runs before each file of the serial project (vitest.config.ts), after ./services-ready.ts: the
 * file holds a lock on the shared PostgreSQL from its first hook to its last, so serial files run
 * one at a time while the outage files, which stop services of their own, run beside them. The
 * lock is a session's advisory lock: a process that dies releases it with its connection.
 */
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';

/** The lock's key, the same in every test process of the run (the run's PostgreSQL is its own). */
const serialFiles = 0x5e7a1;

/** The serial files before this one take about a minute on a machine running two suites. */
const waitBoundMs = 5 * 60_000;

let holder: pg.Client | undefined;

beforeAll(async () => {
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  try {
    await client.query('select pg_advisory_lock($1)', [serialFiles]);
  } catch (err) {
    await client.end();
    throw err;
  }
  holder = client;
}, waitBoundMs);

afterAll(async () => {
  const client = holder;
  holder = undefined;
  // Ending the session releases its lock.
  await client?.end();
});
