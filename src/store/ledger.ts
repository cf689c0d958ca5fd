import pg from 'pg';
import { chainedAround, genesisHash, type StreamHead } from '../domain/ledger/hash-chain.js';
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

/**
 * The event's values for a statement that chains it itself, eight after the statement's own (see
 * `appendedAfterLocked`): the stream, the event's type, data and key, its text around its time and
 * seq (`chainedAround`) and the channel its notice goes to.
 */
function chainValues(streamId: string, event: Redacted): unknown[] {
  const { open, beforeSeq, after } = chainedAround({
    stream_id: streamId,
    type: event.type,
    data: event.data,
    idempotency_key: event.idempotencyKey,
  });
  return [
    streamId,
    event.type,
    JSON.stringify(event.data),
    event.idempotencyKey,
    open,
    beforeSeq,
    after,
    ledgerChannel,
  ];
}

/**
 * The event appended after the head in `locked` (its stream_id, head_seq and head_hash, locked
 * by the statement) where `condition` holds, the head moved to it and, while a reader watches the
 * stream (`watchStream`: the head's latest version, as the lock found it, says until when), the
 * notice sent, as CTEs named stamped, appended, moved and noticed. The time, seq and hash come
 * from the head as the lock found it (the time read once the lock is held, to the millisecond, as
 * an event's time is read back), so the statement needs nothing read before it, holds the head
 * only while it runs, and a stream's times follow its seq.
 */
function appendedAfterLocked($: (i: number) => string, condition: string): string {
  return `stamped as materialized (
       select l.stream_id, l.head_seq + 1 as seq, l.head_hash,
         to_char(date_trunc('milliseconds', clock_timestamp()) at time zone 'UTC',
           'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as at
       from locked l where ${condition}
     ), appended as (
       insert into ledger_events (stream_id, seq, type, at, data, idempotency_key, prev_hash, hash)
       select s.stream_id, s.seq, ${$(2)}::text, s.at::timestamptz, ${$(3)}::jsonb, ${$(4)}::text,
         s.head_hash,
         encode(sha256(convert_to(s.head_hash || ${$(5)}::text || '"' || s.at || '"'
           || ${$(6)}::text || s.seq::text || ${$(7)}::text, 'UTF8')), 'hex')
       from stamped s
       on conflict (stream_id, idempotency_key) do nothing
       returning stream_id, seq, hash
     ), moved as (
       update ledger_streams s set head_seq = a.seq, head_hash = a.hash
       from appended a where s.stream_id = a.stream_id
       returning s.stream_id, s.watched_until
     ), noticed as (
       select pg_notify(${$(8)}::text, stream_id) from moved where watched_until > now()
     )`;
}

const appendSql = `with locked as materialized (
       select stream_id, head_seq, head_hash from ledger_streams where stream_id = $1::text
       for update
     ), ${appendedAfterLocked((i) => `$${String(i)}`, 'true')}
     select (select count(*) from locked)::int as locked, a.seq, a.hash
     from (select count(*) from noticed) as notices left join appended a on true`;

/**
 * Appends one redacted event to a stream, inside the caller's transaction: the event commits or
 * rolls back with the state change it describes. The stream's head row is locked for the rest of
 * the transaction, so seq is gapless and commit order is seq order. Only `Redacted` envelopes
 * are accepted; the redactor is the only maker of those. One round trip: the head locked, the
 * event chained after it, the head's move and the notice in one statement (a stream's first event
 * creates its head first; an event already appended under the same idempotency key adds nothing
 * and is read back instead).
 */
export async function appendEvent(
  tx: pg.PoolClient,
  streamId: string,
  event: Redacted,
): Promise<AppendResult> {
  const values = chainValues(streamId, event);
  const append = () =>
    tx.query<{ locked: number; seq: number | null; hash: string | null }>(
      prepared(appendSql, values),
    );
  let [row] = (await append()).rows;
  if (row?.locked === 0) {
    await lockStreamHead(tx, streamId);
    [row] = (await append()).rows;
  }
  if (row?.seq != null && row.hash != null) return { seq: row.seq, hash: row.hash, appended: true };
  const existing = await tx.query<{ seq: number; hash: string }>(
    'select seq, hash from ledger_events where stream_id = $1 and idempotency_key = $2',
    [streamId, event.idempotencyKey],
  );
  if (!existing.rows[0]) throw new Error(`ledger event ${event.idempotencyKey} was not appended`);
  return { ...existing.rows[0], appended: false };
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
  /** The head was locked, but the change matched nothing: nothing was appended. */
  | { outcome: 'unchanged' }
  /**
   * No head was locked (the stream has none yet, or the lock taken first found no row): nothing
   * was done.
   */
  | { outcome: 'head unknown' };

interface GuardColumns {
  ledger_locked: number;
  ledger_changed: number;
  ledger_appended: number;
}

/**
 * A state change and the event that describes it in one statement, without a transaction of its
 * own when `db` is the pool: the stream's head is locked, the change made, and the event (chained
 * after the head as the lock found it), the head's move and the notice follow from the change.
 * All of it commits together or not at all, and seq stays gapless with commit order seq order, as
 * with `appendEvent`. Nothing is read before the statement, so writers of one stream queue on its
 * head inside PostgreSQL, each holding it only while its statement runs.
 */
export async function appendGuarded<Row extends object>(
  db: Queryable,
  streamId: string,
  change: GuardedChange,
  event: Redacted,
): Promise<GuardedOutcome<Row>> {
  const once = () => tryGuarded<Row>(db, streamId, change, event);
  // On the pool the statement is its own transaction, tried again after a deadlock; inside the
  // caller's transaction, that transaction is (withTransaction).
  return db instanceof pg.Pool ? retryingConflicts(once) : once();
}

async function tryGuarded<Row extends object>(
  db: Queryable,
  streamId: string,
  change: GuardedChange,
  event: Redacted,
): Promise<GuardedOutcome<Row>> {
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
       select stream_id from locked
     ), changed as (
       ${change.sql}
     ),${change.followedBy ? ` ${change.followedBy},` : ''} ${appendedAfterLocked(
       $,
       'exists (select 1 from changed)',
     )}
     select (select count(*) from locked)::int as ledger_locked,
       (select count(*) from changed)::int as ledger_changed,
       (select count(*) from moved)::int as ledger_appended, c.*
     from (select count(*) from noticed) as notices left join changed c on true`,
      [...change.values, ...chainValues(streamId, event)],
    ),
  );
  const [first] = rows;
  if (!first)
    throw new Error(`ledger event ${event.idempotencyKey}: the guarded append said nothing`);
  const { ledger_locked, ledger_changed, ledger_appended, ...row } = first;
  if (ledger_locked === 0) return { outcome: 'head unknown' };
  if (ledger_changed === 0) return { outcome: 'unchanged' };
  // A change whose event was already there: the key says this fact was recorded, so a second
  // change of the same fact must not commit without it.
  if (ledger_appended === 0)
    throw new Error(`ledger event ${event.idempotencyKey} was already appended for another change`);
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
