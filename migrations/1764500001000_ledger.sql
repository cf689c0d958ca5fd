-- Up Migration

-- One row per stream (a stream is a session): its head. Appends lock this row, so seq is
-- assigned gaplessly and commit order equals seq order.
create table ledger_streams (
  stream_id text primary key,
  head_seq bigint not null default 0,
  head_hash text not null
);

create table ledger_events (
  stream_id text not null references ledger_streams (stream_id),
  seq bigint not null check (seq >= 1),
  type text not null,
  at timestamptz not null,
  data jsonb not null,
  idempotency_key text not null,
  prev_hash text not null,
  hash text not null,
  primary key (stream_id, seq),
  unique (stream_id, idempotency_key)
);

-- Append-only. Changing the past takes a deliberate act (disabling this trigger), and the
-- hash chain still shows it.
create trigger ledger_events_append_only before update or delete on ledger_events
  for each row execute function forbid_change();

-- Down Migration
drop table ledger_events;
drop table ledger_streams;
