import pg from 'pg';
import { genesisHash, eventHash, type StreamHead } from '../domain/ledger/hash-chain.js';
import type { Redacted } from '../domain/ledger/redaction.js';
import { prepared, retryingConflicts, type Queryable } from './pool.js';

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
export async function lockStreamHead(tx: pg.PoolClient, streamId: string): Promise<StreamHeadRow> {
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

/** The event as the chain holds it after `head`, and its hash. */
function chainedAfter(head: StreamHeadRow, streamId: string, event: Redacted) {
  const chained = {
    stream_id: streamId,
    seq: head.head_seq + 1,
    type: event.type,
    at: new Date().toISOString(),
    data: event.data,
    idempotency_key: event.idempotencyKey,
  };
  return { chained, hash: eventHash(head.head_hash, chained) };
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
  const head = await lockStreamHead(tx, streamId);
  const { chained, hash } = chainedAfter(head, streamId, event);
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
  if (appended.rowCount === 1) {
    sawHead(streamId, { head_seq: chained.seq, head_hash: hash });
    return { seq: chained.seq, hash, appended: true };
  }
  const existing = await tx.query<{ seq: number; hash: string }>(
    'select seq, hash from ledger_events where stream_id = $1 and idempotency_key = $2',
    [streamId, event.idempotencyKey],
  );
  if (!existing.rows[0]) throw new Error(`ledger event ${event.idempotencyKey} was not appended`);
  return { ...existing.rows[0], appended: false };
}

/**
 * Where this process last saw each stream's head. Only a guess: a guarded append checks it under
 * the head's lock and changes nothing when the head has moved (another writer, a transaction that
 * rolled back), so a wrong guess costs one statement and never an event.
 */
const seenHeads = new Map<string, StreamHeadRow>();
const seenHeadsLimit = 10_000;

function sawHead(streamId: string, head: StreamHeadRow): void {
  if (seenHeads.size >= seenHeadsLimit && !seenHeads.has(streamId)) seenHeads.clear();
  seenHeads.set(streamId, head);
}

/**
 * A state change for a guarded append: SQL that changes nothing unless
 * `exists (select 1 from head)` holds, returning the changed rows; its values are $1..$n.
 */
export interface GuardedChange {
  sql: string;
  values: unknown[];
  /**
   * A row lock the change would take anyway, taken before the head's (SQL over the same values):
   * a call's insert, whose foreign key locks its run, locks the run first, as a revocation does
   * (the run, then the head), so the two never wait on each other in a cycle. When it finds no
   * row, no head is locked and nothing is done.
   */
  lockFirst?: string;
  /**
   * Further writes that follow from the change, as CTEs after it (`name as (...)`, separated by
   * commas) reading `changed`: a data-modifying CTE cannot nest inside another, and in the same
   * statement they commit with the change and its event or not at all.
   */
  followedBy?: string;
}

export type GuardedOutcome<Row> =
  /** The change was made and its event appended (or found already there), in one statement. */
  | { outcome: 'changed'; row: Row }
  /** The head was as seen, but the change matched nothing: nothing was appended. */
  | { outcome: 'unchanged' }
  /**
   * The head moved under each guess, or none was locked (the stream has none yet, or the lock
   * taken first found no row): nothing was done.
   */
  | { outcome: 'head unknown' };

interface GuardColumns {
  ledger_head_seq: number | null;
  ledger_head_hash: string | null;
  ledger_changed: number;
  ledger_appended: number;
}

/** A guess no head matches: a stream this process has not seen is learnt from the first try. */
const unseenHead: StreamHeadRow = { head_seq: -1, head_hash: '' };

/**
 * A state change and the event that describes it in one statement, without a transaction of its
 * own when `db` is the pool: the stream's head is locked, the change is made only if the head is
 * where this process last saw it, and the event, the head's move and the notice follow from the
 * change. All of it commits together or not at all, and seq stays gapless with commit order seq
 * order, as with `appendEvent`. A head that moved changes nothing and is read back; the statement
 * is tried once more with it (unless told `guesses: 1`), and a head that moved again is left to
 * `appendEvent`'s path.
 */
export async function appendGuarded<Row extends object>(
  db: Queryable,
  streamId: string,
  change: GuardedChange,
  event: Redacted,
  { guesses = 2 }: { guesses?: 1 | 2 } = {},
): Promise<GuardedOutcome<Row>> {
  const guessing = async (): Promise<GuardedOutcome<Row>> => {
    for (let guess = 0; guess < guesses; guess += 1) {
      const head = seenHeads.get(streamId) ?? unseenHead;
      const tried = await tryGuarded<Row>(db, streamId, head, change, event);
      if (tried.outcome !== 'head moved') return tried;
      // No head was locked (the stream has none yet, or the change's own first lock found
      // nothing to do): the guess was not tried, and is kept.
      if (!tried.head) return { outcome: 'head unknown' };
      sawHead(streamId, tried.head);
    }
    // A head that moved under a second guess moves fast: the next writer reads it under lock.
    // After a single guess, the head it found is the one to guess next.
    if (guesses > 1) seenHeads.delete(streamId);
    return { outcome: 'head unknown' };
  };
  // On the pool the statement is its own transaction, tried again after a deadlock; inside the
  // caller's transaction, that transaction is (withTransaction).
  return db instanceof pg.Pool ? retryingConflicts(guessing) : guessing();
}

async function tryGuarded<Row extends object>(
  db: Queryable,
  streamId: string,
  head: StreamHeadRow,
  change: GuardedChange,
  event: Redacted,
): Promise<
  | Exclude<GuardedOutcome<Row>, { outcome: 'head unknown' }>
  | { outcome: 'head moved'; head: StreamHeadRow | undefined }
> {
  const { chained, hash } = chainedAfter(head, streamId, event);
  const n = change.values.length;
  const $ = (i: number) => `$${String(n + i)}`;
  const { rows } = await db.query<GuardColumns & Row>(
    prepared(
      `with first as materialized (
       ${change.lockFirst ?? 'select 1'}
     ), locked as materialized (
       select stream_id, head_seq, head_hash from ledger_streams
       where stream_id = ${$(1)}::text and exists (select 1 from first)
       for update
     ), head as materialized (
       select stream_id from locked where head_seq = ${$(2)}::bigint and head_hash = ${$(3)}::text
     ), changed as (
       ${change.sql}
     ),${change.followedBy ? ` ${change.followedBy},` : ''} appended as (
       insert into ledger_events (stream_id, seq, type, at, data, idempotency_key, prev_hash, hash)
       select ${$(1)}::text, ${$(4)}::bigint, ${$(5)}::text, ${$(6)}::timestamptz, ${$(7)}::jsonb,
         ${$(8)}::text, ${$(3)}::text, ${$(9)}::text
       where exists (select 1 from changed)
       on conflict (stream_id, idempotency_key) do nothing
       returning stream_id, seq, hash
     ), moved as (
       update ledger_streams s set head_seq = a.seq, head_hash = a.hash
       from appended a where s.stream_id = a.stream_id
       returning s.stream_id
     ), noticed as (
       select pg_notify(${$(10)}::text, stream_id) from moved
     )
     select (select head_seq from locked) as ledger_head_seq,
       (select head_hash from locked) as ledger_head_hash,
       (select count(*) from changed)::int as ledger_changed,
       (select count(*) from noticed)::int as ledger_appended, c.*
     from (select 1) as one left join changed c on true`,
      [
        ...change.values,
        streamId,
        head.head_seq,
        head.head_hash,
        chained.seq,
        chained.type,
        chained.at,
        JSON.stringify(chained.data),
        chained.idempotency_key,
        hash,
        ledgerChannel,
      ],
    ),
  );
  const [first] = rows;
  if (!first)
    throw new Error(`ledger event ${event.idempotencyKey}: the guarded append said nothing`);
  const { ledger_head_seq, ledger_head_hash, ledger_changed, ledger_appended, ...row } = first;
  if (ledger_head_seq !== head.head_seq || ledger_head_hash !== head.head_hash) {
    const found =
      ledger_head_seq === null || ledger_head_hash === null
        ? undefined
        : { head_seq: ledger_head_seq, head_hash: ledger_head_hash };
    return { outcome: 'head moved', head: found };
  }
  if (ledger_changed === 0) return { outcome: 'unchanged' };
  // A change whose event was already there: the key says this fact was recorded, so a second
  // change of the same fact must not commit without it.
  if (ledger_appended === 0)
    throw new Error(`ledger event ${event.idempotencyKey} was already appended for another change`);
  if (ledger_appended === 1) sawHead(streamId, { head_seq: chained.seq, head_hash: hash });
  return { outcome: 'changed', row: row as unknown as Row };
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
