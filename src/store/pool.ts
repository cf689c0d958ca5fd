import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { tracingOn } from '../telemetry/tracing.js';
import { tracePool } from './pool-tracing.js';

export type Pool = pg.Pool;
export type Queryable = pg.Pool | pg.PoolClient;

// bigint columns (token counts) come back as numbers: they stay far below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

/**
 * How long a caller waits on PostgreSQL: for a connection (queued or new), for a statement on
 * the server, and for a query's answer on the client (which also ends a wait on a server that
 * stopped answering altogether). Unset: no bound.
 */
export interface PostgresBounds {
  max?: number;
  connectMs?: number;
  statementMs?: number;
  queryMs?: number;
}

const ignore = () => undefined;

/**
 * A pool no PostgreSQL failure can take the process down with: the pool and every client it
 * makes have their 'error' handled (a checked-out client whose server went away emits one, and
 * unhandled it ends the process); a broken client is discarded on release, never reused.
 */
export function createPool(
  connectionString: string,
  { max = 20, connectMs, statementMs, queryMs }: PostgresBounds = {},
): Pool {
  const pool = new pg.Pool({
    connectionString,
    max,
    keepAlive: true,
    ...(connectMs !== undefined && { connectionTimeoutMillis: connectMs }),
    ...(statementMs !== undefined && { statement_timeout: statementMs }),
    ...(queryMs !== undefined && { query_timeout: queryMs }),
  });
  pool.on('error', ignore);
  pool.on('connect', (client) => {
    client.on('error', ignore);
  });
  if (tracingOn()) tracePool(pool);
  return pool;
}

/** At most this many texts are named: past it a statement runs unnamed, as any other. */
const preparedTextsAtMost = 500;
const preparedNames = new Map<string, string>();

/**
 * A statement of a call's common path, named: each connection parses and plans it once and keeps
 * the plan, where an unnamed statement is parsed and planned on every run (most of a complex
 * statement's time on the server; see docs/performance.md). Only for a text the code fixes, never
 * one built from input: every connection of a pool keeps each name it has run. A kept plan whose
 * result changes shape (a migration added a column to a `returning *`) fails once on that
 * connection, which is then discarded (`pool.query` does so on any error, `withTransaction` on
 * this one).
 */
export function prepared(text: string, values: unknown[]): pg.QueryConfig {
  let name = preparedNames.get(text);
  if (name === undefined) {
    if (preparedNames.size >= preparedTextsAtMost) return { text, values };
    name = `gate_${createHash('sha256').update(text).digest('base64url').slice(0, 24)}`;
    preparedNames.set(text, name);
  }
  return { name, text, values };
}

/** A kept plan that no longer fits its statement's result: its connection must go. */
function isStalePlanError(err: unknown): boolean {
  return (
    err instanceof Error &&
    (err as Error & { code?: unknown }).code === '0A000' &&
    err.message.includes('cached plan must not change result type')
  );
}

/** Whether PostgreSQL answers at all (for readiness). */
export async function pingDatabase(pool: Pool): Promise<void> {
  await pool.query('select 1');
}

/** How long one answer to "does PostgreSQL answer?" serves every call waiting. */
const answersReuseMs = 1_000;
const lastAnswers = new WeakMap<Pool, { at: number; answer: Promise<void> }>();

/**
 * Whether PostgreSQL answers, asked at most once a second for all of a pool's callers (every call
 * waiting on its gate asks each second): a PostgreSQL that stops answering is still seen within
 * the pool's query bound plus that second.
 */
export function databaseAnswers(pool: Pool): Promise<void> {
  const now = Date.now();
  const last = lastAnswers.get(pool);
  if (last && now - last.at < answersReuseMs) return last.answer;
  const answer = pingDatabase(pool);
  answer.catch(() => undefined);
  lastAnswers.set(pool, { at: now, answer });
  return answer;
}

/** The single row an INSERT ... RETURNING or a lookup by key must produce. */
export function one<T>(rows: T[]): T {
  const [row] = rows;
  if (row === undefined) throw new Error('expected a row, got none');
  return row;
}

/**
 * `work` in one transaction. A client whose connection failed or timed out is discarded, not
 * rolled back: its transaction dies with its connection, and a query still waiting on it must
 * never reach the next caller. A transaction PostgreSQL aborted for another's sake (a deadlock)
 * left nothing behind, and is run again, a few times at most.
 */
export function withTransaction<T>(
  pool: Pool,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  return retryingConflicts(() => inTransaction(pool, work));
}

async function inTransaction<T>(
  pool: Pool,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('begin');
    const result = await work(client);
    await client.query('commit');
    return result;
  } catch (err) {
    broken = isUnavailableError(err) || isStalePlanError(err) ? (err as Error) : undefined;
    if (!broken) {
      await client.query('rollback').catch((rollbackFailed: unknown) => {
        broken = rollbackFailed instanceof Error ? rollbackFailed : new Error('rollback failed');
      });
    }
    throw err;
  } finally {
    client.release(broken);
  }
}

/** How many times work PostgreSQL aborted for another's sake is tried in all. */
const conflictAttempts = 3;

/**
 * `work` (a statement, or a transaction of its own) run again after PostgreSQL aborted it for
 * another's sake: it committed nothing, so running it again is safe. Past the last attempt the
 * conflict is the caller's, which answers it as a moment's unavailability.
 */
export async function retryingConflicts<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await work();
    } catch (err) {
      if (attempt >= conflictAttempts || !isTransientConflict(err)) throw err;
      // A little apart, so the transactions that met do not meet again at once.
      await sleep(5 + Math.random() * 20 * attempt);
    }
  }
}

/**
 * A transaction PostgreSQL aborted so that another could go on: a deadlock (40P01) or a
 * serialization failure (40001). Nothing of it committed; the same work may be tried again.
 */
export function isTransientConflict(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const { code } = err as Error & { code?: unknown };
  return code === '40P01' || code === '40001';
}

/** Runs `work` on one read-only snapshot: what commits meanwhile is not half-seen. */
export function inOneSnapshot<T>(
  pool: Pool,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  return withTransaction(pool, async (tx) => {
    await tx.query('set transaction isolation level repeatable read, read only');
    return work(tx);
  });
}

/** Errors that mean "PostgreSQL is not reachable right now" rather than "this query is wrong". */
export function isUnavailableError(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const { code, syscall } = err as Error & { code?: unknown; syscall?: unknown };
  if (typeof code === 'string') {
    // EAGAIN: a Unix socket's backlog is full (a server that stopped accepting).
    if (['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAGAIN'].includes(code))
      return true;
    // A Unix socket that is not there: the server is not running.
    if (code === 'ENOENT' && syscall === 'connect') return true;
    // 08: connection exception; 57P01-03: admin shutdown, crash shutdown, cannot connect now;
    // 57014: a statement cancelled (the statement timeout); 53300: too many connections.
    return code.startsWith('08') || ['57P01', '57P02', '57P03', '57014', '53300'].includes(code);
  }
  // node-postgres's own client errors carry no code, only these messages. An error with a code
  // is the server's, whose message may quote a value the caller chose: never read as an outage.
  return /Connection terminated|timeout exceeded when trying to connect|Query read timeout|not queryable/i.test(
    err.message,
  );
}
