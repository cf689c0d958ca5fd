import type pg from 'pg';
import { genesisHash, eventHash, type StreamHead } from '../domain/ledger/hash-chain.js';
import type { Redacted } from '../domain/ledger/redaction.js';
import type { Queryable } from './pool.js';

export interface LedgerEvent {
  seq: number;
  type: string;
  at: string;
  data: Record<string, unknown>;
  prev_hash: string;
  hash: string;
}

export interface AppendResult {
  seq: number;
  hash: string;
  /** False when an event with the same idempotency key was already there: nothing was added. */
  appended: boolean;
}

/** The channel appends notify (on commit) so stream readers wake without polling. */
export const ledgerChannel = 'ledger_appended';

/**
 * Appends one redacted event to a stream, inside the caller's transaction: the event commits or
 * rolls back with the state change it describes. The stream's head row is locked for the rest of
 * the transaction, so seq is gapless and commit order is seq order. Only `Redacted` envelopes
 * are accepted; the redactor is the only maker of those.
 */
export async function appendEvent(
  tx: pg.PoolClient,
  streamId: string,
  event: Redacted,
): Promise<AppendResult> {
  await tx.query(
    `insert into ledger_streams (stream_id, head_seq, head_hash) values ($1, 0, $2)
     on conflict (stream_id) do nothing`,
    [streamId, genesisHash],
  );
  const head = await tx.query<{ head_seq: number; head_hash: string }>(
    'select head_seq, head_hash from ledger_streams where stream_id = $1 for update',
    [streamId],
  );
  const existing = await tx.query<{ seq: number; hash: string }>(
    'select seq, hash from ledger_events where stream_id = $1 and idempotency_key = $2',
    [streamId, event.idempotencyKey],
  );
  if (existing.rows[0]) return { ...existing.rows[0], appended: false };

  const { head_seq, head_hash } = head.rows[0] ?? { head_seq: 0, head_hash: genesisHash };
  const chained = {
    stream_id: streamId,
    seq: head_seq + 1,
    type: event.type,
    at: new Date().toISOString(),
    data: event.data,
    idempotency_key: event.idempotencyKey,
  };
  const hash = eventHash(head_hash, chained);
  await tx.query(
    `insert into ledger_events (stream_id, seq, type, at, data, idempotency_key, prev_hash, hash)
     values ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [
      streamId,
      chained.seq,
      chained.type,
      chained.at,
      JSON.stringify(chained.data),
      chained.idempotency_key,
      head_hash,
      hash,
    ],
  );
  await tx.query('update ledger_streams set head_seq = $2, head_hash = $3 where stream_id = $1', [
    streamId,
    chained.seq,
    hash,
  ]);
  await tx.query('select pg_notify($1, $2)', [ledgerChannel, streamId]);
  return { seq: chained.seq, hash, appended: true };
}

const eventColumns = `seq, type, to_char(at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as at,
  data, prev_hash, hash`;

export async function readEvents(
  db: Queryable,
  streamId: string,
  after: number,
  limit: number,
): Promise<LedgerEvent[]> {
  const { rows } = await db.query<LedgerEvent>(
    `select ${eventColumns} from ledger_events where stream_id = $1 and seq > $2 order by seq limit $3`,
    [streamId, after, limit],
  );
  return rows;
}

/** Every event with what the hash covers, for verification. */
export async function readChainedEvents(
  db: Queryable,
  streamId: string,
  after: number,
  limit: number,
) {
  const { rows } = await db.query<LedgerEvent & { idempotency_key: string }>(
    `select ${eventColumns}, idempotency_key from ledger_events
     where stream_id = $1 and seq > $2 order by seq limit $3`,
    [streamId, after, limit],
  );
  return rows;
}

/** The stream's head row: where its chain ends, as appends left it. */
export async function readStreamHead(
  db: Queryable,
  streamId: string,
): Promise<StreamHead | undefined> {
  const { rows } = await db.query<{ seq: number; hash: string }>(
    'select head_seq as seq, head_hash as hash from ledger_streams where stream_id = $1',
    [streamId],
  );
  return rows[0];
}
