/**
 * TRUNCATE on the append-only tables. A TRUNCATE takes every table it reaches exclusively, so
 * the file runs alone, after the concurrent ones; each attempt is rolled back whatever happens.
 */
import assert from 'node:assert/strict';
import { test } from 'vitest';
import { useStorePool } from '../support/store-pool.js';

const store = useStorePool(2);

const appendOnly = [
  'ledger_events',
  'ledger_streams',
  'policy_versions',
  'runs',
  'run_revocations',
  'model_reservations',
  'model_usage',
  'model_thinking_blocks',
];

for (const table of appendOnly) {
  test(`TRUNCATE ${table} is refused, also with CASCADE, and nothing is removed`, async () => {
    const client = await store.pool.connect();
    try {
      const count = async () =>
        (await client.query<{ n: number }>(`select count(*)::int as n from ${table}`)).rows[0]!.n;
      const before = await count();
      for (const statement of [`truncate ${table}`, `truncate ${table} cascade`]) {
        await client.query('begin');
        try {
          await client.query("set local lock_timeout = '10s'");
          await assert.rejects(client.query(statement), (error: Error) => {
            // Without CASCADE a referenced table is refused by its foreign keys first.
            assert.match(
              error.message,
              statement.endsWith('cascade')
                ? /append-only: TRUNCATE is refused/
                : /append-only: TRUNCATE is refused|cannot truncate a table referenced/,
            );
            return true;
          });
        } finally {
          await client.query('rollback');
        }
      }
      assert.ok((await count()) >= before);
    } finally {
      client.release();
    }
  });
}
