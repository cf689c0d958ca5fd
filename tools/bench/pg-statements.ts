/**
 * What PostgreSQL itself counts of the statements a load ran (pg_stat_statements, which the
 * bench's cluster preloads): each normalised text's runs and the server's time executing it,
 * summed over every session of the database since the last reset. (Planning is not counted: the
 * cluster does not track it, and the gate's named statements are planned once per connection.)
 */
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { waitChannels } from '../../src/store/wait-notifications.js';

export interface StatementFigures {
  calls: number;
  /** Execution on the server, milliseconds. */
  ms: number;
}

/** Starts counting from zero; a message when the extension is not there to count. */
export async function countingStatements(db: pg.Client): Promise<string | undefined> {
  try {
    await db.query('create extension if not exists pg_stat_statements');
    await db.query('select pg_stat_statements_reset()');
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

/** Statements PostgreSQL ran in this database since the last reset, by normalised text. */
export async function statementsSinceReset(db: pg.Client): Promise<Map<string, StatementFigures>> {
  const { rows: found } = await db.query<{ query: string; calls: string; ms: number }>(
    `select query, calls, total_exec_time as ms from pg_stat_statements
      where dbid = (select oid from pg_database where datname = current_database())
        and query not like '%pg_stat_statements%'`,
  );
  const byText = new Map<string, StatementFigures>();
  for (const { query, calls, ms } of found) {
    const text = query.replace(/\s+/g, ' ').trim();
    const seen = byText.get(text) ?? { calls: 0, ms: 0 };
    byText.set(text, { calls: seen.calls + Number(calls), ms: seen.ms + ms });
  }
  return byText;
}

/** A statement's text cut to fit a line. */
export const shortText = (text: string, width = 110) =>
  text.length > width ? `${text.slice(0, width - 3)}...` : text;

/**
 * Counts the notices PostgreSQL delivers on the channels the API listens on, as `db` receives
 * them. The count returned is of every notice committed before the call: notices reach a listener
 * in commit order, so one the call sends last arrives after them all.
 */
export async function countingNotices(db: pg.Client): Promise<() => Promise<number>> {
  const marker = `bench-${randomUUID()}`;
  let notices = 0;
  let markers = 0;
  db.on('notification', (message) => {
    if (message.payload === marker) markers += 1;
    else notices += 1;
  });
  for (const channel of Object.values(waitChannels)) await db.query(`listen ${channel}`);
  return async () => {
    const awaited = markers + 1;
    await db.query('select pg_notify($1, $2)', [waitChannels.ledger, marker]);
    const deadline = Date.now() + 30_000;
    while (markers < awaited) {
      if (Date.now() > deadline) throw new Error('the notices were not delivered in 30 s');
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    return notices;
  };
}
