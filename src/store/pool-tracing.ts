/**
 * A span around each PostgreSQL statement, by hand at the pool (no auto-instrumentation): the
 * pool's own queries and those of a client checked out for a transaction. Only the statement's
 * kind and the table it names are recorded; its parameters (argument values, digests, sealed
 * credentials) never are.
 */
import { SpanKind, SpanStatusCode, type Attributes } from '@opentelemetry/api';
import type pg from 'pg';
import { gateTracer } from '../telemetry/tracing.js';

type Query = (...args: unknown[]) => unknown;

const tablePattern = /\b(?:from|into|update|join|table)\s+("?[a-z_][a-z0-9_]*"?)/i;

/** What a statement may say about itself: its first keyword and the first table it names. */
function statementAttributes(text: string): Attributes {
  const operation = /^\s*([a-z]+)/i.exec(text)?.[1]?.toUpperCase() ?? 'UNKNOWN';
  const table = tablePattern.exec(text)?.[1]?.replaceAll('"', '');
  return {
    'db.system': 'postgresql',
    'db.operation.name': operation,
    ...(table && { 'db.collection.name': table }),
  };
}

function statementText(first: unknown): string | undefined {
  if (typeof first === 'string') return first;
  const text = (first as { text?: unknown } | null)?.text;
  return typeof text === 'string' ? text : undefined;
}

/** `query` in a span, for its promise form; a callback or a submittable passes through. */
function traced(query: Query): Query {
  return (...args) => {
    const text = statementText(args[0]);
    const submittable = typeof (args[0] as { submit?: unknown } | null)?.submit === 'function';
    if (text === undefined || submittable || args.some((arg) => typeof arg === 'function')) {
      return query(...args);
    }
    const attributes = statementAttributes(text);
    const name = `pg ${String(attributes['db.operation.name'])}`;
    const span = gateTracer().startSpan(name, { kind: SpanKind.CLIENT, attributes });
    const done = (failed?: unknown) => {
      if (failed !== undefined) {
        const code = (failed as { code?: unknown }).code;
        span.setStatus({
          code: SpanStatusCode.ERROR,
          message: typeof code === 'string' ? code : 'error',
        });
      }
      span.end();
    };
    const answer = query(...args) as Promise<unknown>;
    answer.then(
      () => {
        done();
      },
      (err: unknown) => {
        done(err ?? 'error');
      },
    );
    return answer;
  };
}

const tracedClients = new WeakSet<pg.PoolClient>();

/** Traces the pool's queries and those of the clients it hands out (the promise form). */
export function tracePool(pool: pg.Pool): void {
  const poolQuery = pool.query.bind(pool) as Query;
  pool.query = traced(poolQuery) as typeof pool.query;
  const connect = pool.connect.bind(pool) as (...args: unknown[]) => unknown;
  // The pool's own queries check a client out with a callback: those stay untraced (once is enough).
  pool.connect = ((...args: unknown[]) => {
    if (args.length > 0) return connect(...args);
    return (connect() as Promise<pg.PoolClient>).then((client) => {
      if (!tracedClients.has(client)) {
        tracedClients.add(client);
        client.query = traced(client.query.bind(client)) as typeof client.query;
      }
      return client;
    });
  }) as typeof pool.connect;
}
