/**
 * The common path's statements are named, so that each connection parses and plans them once:
 * what the server keeps, that a kept plan a migration outdated costs one failure on its
 * connection and never the next caller, and that the names stay bounded.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'vitest';
import { createPool, prepared, withTransaction } from '../../src/store/pool.js';
import { testConfig } from '../support/env.js';

async function withPool<T>(use: (pool: ReturnType<typeof createPool>) => Promise<T>) {
  const pool = createPool(testConfig().databaseUrl, { max: 1 });
  try {
    return await use(pool);
  } finally {
    await pool.end();
  }
}

const backendPid = async (pool: ReturnType<typeof createPool>) =>
  (await pool.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;

test('a named statement is parsed once on a connection and kept there; its runs after the first reuse it', async () => {
  await withPool(async (pool) => {
    const text = `select $1::int + 1 as next /* ${randomUUID()} */`;
    const first = await pool.query<{ next: number }>(prepared(text, [1]));
    const second = await pool.query<{ next: number }>(prepared(text, [41]));
    assert.deepEqual([first.rows[0]?.next, second.rows[0]?.next], [2, 42]);
    const kept = await pool.query<{ name: string; statement: string }>(
      'select name, statement from pg_prepared_statements',
    );
    const ours = kept.rows.filter((row) => row.statement === text);
    assert.equal(ours.length, 1, JSON.stringify(kept.rows));
    assert.equal(ours[0]?.name, prepared(text, []).name);
  });
});

test('a kept plan a migration outdated (a column added under `returning *`) fails once, its connection is discarded, and the next caller is answered, in a transaction or not', async () => {
  const table = `prepared_probe_${randomUUID().replaceAll('-', '')}`;
  await withPool(async (pool) => {
    await pool.query(`create table ${table} (id int primary key, note text)`);
    try {
      const upsert = `insert into ${table} (id, note) values ($1, $2)
        on conflict (id) do update set note = excluded.note returning *`;
      for (const inTransaction of [true, false]) {
        const run = (note: string) =>
          inTransaction
            ? withTransaction(pool, (tx) => tx.query(prepared(upsert, [1, note])))
            : pool.query(prepared(upsert, [1, note]));
        await run('before');
        const planned = await backendPid(pool);
        await pool.query(`alter table ${table} add column ${inTransaction ? 'a' : 'b'} int`);
        const failed = await run('stale').catch((err: unknown) => err);
        assert.match(String(failed), /cached plan must not change result type/);
        // The connection that kept the outdated plan is gone; the next one plans afresh.
        assert.notEqual(await backendPid(pool), planned);
        const answered = await run('after');
        assert.equal(answered.rows[0]?.note, 'after');
      }
    } finally {
      await pool.query(`drop table ${table}`);
    }
  });
});

test('names are given to a bounded number of texts: past the bound a statement runs unnamed, and a text named before keeps its name', () => {
  const named = prepared('select 1 as named_before_the_bound', []);
  assert.ok(named.name);
  let unnamed = 0;
  for (let i = 0; i < 600; i += 1) {
    if (prepared(`select ${String(i)} as filling_the_bound`, []).name === undefined) unnamed += 1;
  }
  assert.ok(unnamed > 0, 'every text was named');
  assert.equal(prepared(`select 'after the bound'`, []).name, undefined);
  assert.equal(prepared('select 1 as named_before_the_bound', []).name, named.name);
});
