/**
 * What PostgreSQL itself counts of the statements a load ran (pg_stat_statements, which the
 * bench's cluster preloads): each normalised text's runs and the server's time executing it,
 * summed over every session of the database since the last reset. (Planning is not counted: the
 * cluster does not track it, and the gate's named statements are planned once per connection.)
 */
import type pg from 'pg';

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
