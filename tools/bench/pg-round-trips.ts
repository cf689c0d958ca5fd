/**
 * Loaded into a measured process (`--import`) before its own code: counts the statements its pg
 * clients send, and prints the counts on SIGWINCH. A pg client sends a query and waits for its
 * answer before the next, so each query is one round trip to PostgreSQL; a client in pg's
 * pipeline mode sends without waiting, and its queries are counted apart.
 */
import pg from 'pg';
import { countsLine } from './pg-query-counts.js';

const counts = { waited: 0, pipelined: 0 };
type Query = (this: pg.Client & { pipeline?: boolean }, ...args: unknown[]) => unknown;
const prototype = pg.Client.prototype as unknown as { query: Query };
const query = prototype.query;
prototype.query = function (...args) {
  if (this.pipeline) counts.pipelined += 1;
  else counts.waited += 1;
  return query.apply(this, args);
};

// Not SIGUSR2, on which the Temporal SDK stops the process's workers; no terminal here to resize.
process.on('SIGWINCH', () => {
  process.stdout.write(`${countsLine(counts)}\n`);
});
