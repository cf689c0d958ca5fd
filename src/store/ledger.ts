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

interface AppendResult {
  seq: number;
  hash: string;
  /** False when an event with the same idempotency key was already there: nothing was added. */
  appended: boolean;
}

/** The channel appends notify (on commit) so stream readers wake without polling. */
const ledgerChannel = 'ledger_appended';

const lockHeadSql =
  'select head_seq, head_hash from ledger_streams where stream_id = $1 for update';

/** The stream's head row, created on the stream's first append, locked to the transaction. */
async function lockHead(tx: pg.PoolClient, streamId: string): Promise<StreamHeadRow> {
  const found = await tx.query<StreamHeadRow>(lockHeadSql, [streamId]);
  if (found.rows[0]) return found.rows[0];
  await tx.query(
    `insert into ledger_streams (stream_id, head_seq, head_hash) values ($1, 0, $2)
     on conflict (stream_id) do nothing`,
    [streamId, genesisHash],
  );
  const created = await tx.query<StreamHeadRow>(lockHeadSql, [streamId]);
  if (!created.rows[0]) throw new Error(`ledger stream ${streamId} has no head`);
  return created.rows[0];
}

interface StreamHeadRow {
  head_seq: number;
  head_hash: string;
}

/**
 * Appends one redacted event to a stream, inside the caller's transaction: the event commits or
 * rolls back with the state change it describes. The stream's head row is locked for the rest of
 * the transaction, so seq is gapless and commit order is seq order. Only `Redacted` envelopes
 * are accepted; the redactor is the only maker of those. Two round trips: the head locked, then
 * the event, the head's move and the notice in one statement (an event already appended under
 * the same idempotency key adds nothing and is read back instead).
 */
export async function appendEvent(
  tx: pg.PoolClient,
  streamId: string,
  event: Redacted,
): Promise<AppendResult> {
  const head = await lockHead(tx, streamId);
  const chained = {
    stream_id: streamId,
    seq: head.head_seq + 1,
    type: event.type,
    at: new Date().toISOString(),
    data: event.data,
    idempotency_key: event.idempotencyKey,
  };
  const hash = eventHash(head.head_hash, chained);
  const appended = await tx.query(
    `with appended as (
       insert into ledger_events (stream_id, seq, type, at, data, idempotency_key, prev_hash, hash)
       values ($1, $2, $3, $4, $5, $6, $7, $8)
       on conflict (stream_id, idempotency_key) do nothing
       returning stream_id, seq, hash
     ), moved as (
       update ledger_streams s set head_seq = a.seq, head_hash = a.hash
       from appended a where s.stream_id = a.stream_id
       returning s.stream_id
     )
     select pg_notify($9, stream_id) from moved`,
    [
      streamId,
      chained.seq,
      chained.type,
      chained.at,
      JSON.stringify(chained.data),
      chained.idempotency_key,
      head.head_hash,
      hash,
      ledgerChannel,
    ],
  );
  if (appended.rowCount === 1) return { seq: chained.seq, hash, appended: true };
  const existing = await tx.query<{ seq: number; hash: string }>(
    'select seq, hash from ledger_events where stream_id = $1 and idempotency_key = $2',
    [streamId, event.idempotencyKey],
  );
  if (!existing.rows[0]) throw new Error(`ledger event ${event.idempotencyKey} was not appended`);
  return { ...existing.rows[0], appended: false };
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

/** A tool call's events (requested, decision, approval, brokered), by their idempotency keys. */
export async function readCallEvents(
  db: Queryable,
  streamId: string,
  toolCallId: string,
): Promise<LedgerEvent[]> {
  const keys = [
    'tool.requested',
    'tool.decision',
    'tool.brokered',
    'approval.requested',
    'approval.decided',
  ];
  const { rows } = await db.query<LedgerEvent>(
    `select ${eventColumns} from ledger_events
     where stream_id = $1 and idempotency_key = any($2::text[]) order by seq`,
    [streamId, keys.map((type) => `${type}:${toolCallId}`)],
  );
  return rows;
}
