import pg from 'pg';

export type Pool = pg.Pool;
export type Queryable = pg.Pool | pg.PoolClient;

// bigint columns (token counts) come back as numbers: they stay far below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

/** A pool whose callers give up waiting for a connection after `connectionTimeoutMs`. */
export function createPool(connectionString: string, max = 20, connectionTimeoutMs = 5_000): Pool {
  const pool = new pg.Pool({ connectionString, max, connectionTimeoutMillis: connectionTimeoutMs });
  // An idle client losing its connection (PostgreSQL restarted) must not crash the process.
  pool.on('error', () => undefined);
  return pool;
}

/** Whether PostgreSQL answers at all (for readiness). */
export async function pingDatabase(pool: Pool): Promise<void> {
  await pool.query('select 1');
}

/** The single row an INSERT ... RETURNING or a lookup by key must produce. */
export function one<T>(rows: T[]): T {
  const [row] = rows;
  if (row === undefined) throw new Error('expected a row, got none');
  return row;
}

export async function withTransaction<T>(
  pool: Pool,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('begin');
    const result = await work(client);
    await client.query('commit');
    return result;
  } catch (err) {
    await client.query('rollback').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

/** Errors that mean "PostgreSQL is not reachable right now" rather than "this query is wrong". */
export function isUnavailableError(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const { code, syscall } = err as Error & { code?: unknown; syscall?: unknown };
  if (typeof code === 'string') {
    if (['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND'].includes(code))
      return true;
    // A Unix socket that is not there: the server is not running.
    if (code === 'ENOENT' && syscall === 'connect') return true;
    // 08: connection exception; 57P01-03: admin shutdown, crash shutdown, cannot connect now.
    if (code.startsWith('08') || ['57P01', '57P02', '57P03'].includes(code)) return true;
  }
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(
    err.message,
  );
}
