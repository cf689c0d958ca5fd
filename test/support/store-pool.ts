import { afterAll, beforeAll } from 'vitest';
import { createPool, type Pool } from '../../src/store/pool.js';
import { testConfig } from './env.js';

/**
 * A pool of the file's own on the test stack's PostgreSQL, for store calls and assertions on
 * the tables: opened before the file's tests, closed after. Read `.pool` inside tests. A test
 * that queues hundreds of transactions waits for a connection as long as a busy shared machine
 * needs (a minute), where the services give up after 5 s.
 */
export function useStorePool(max = 10): { pool: Pool } {
  const holder = {} as { pool: Pool };
  beforeAll(() => {
    holder.pool = createPool(testConfig().databaseUrl, { max, connectMs: 60_000 });
  });
  afterAll(async () => {
    await holder.pool.end();
  });
  return holder;
}
