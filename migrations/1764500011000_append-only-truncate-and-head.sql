-- Up Migration

-- Row triggers do not fire on TRUNCATE: without these, one statement empties an append-only
-- table (and a TRUNCATE ... CASCADE from a parent table would too, since these fire for every
-- table it reaches).
create function forbid_truncate() returns trigger language plpgsql as $$
begin
  raise exception '% is append-only: TRUNCATE is refused', tg_table_name
    using errcode = 'integrity_constraint_violation';
end $$;

create trigger ledger_events_no_truncate before truncate on ledger_events
  for each statement execute function forbid_truncate();
create trigger ledger_streams_no_truncate before truncate on ledger_streams
  for each statement execute function forbid_truncate();
create trigger policy_versions_no_truncate before truncate on policy_versions
  for each statement execute function forbid_truncate();
create trigger runs_no_truncate before truncate on runs
  for each statement execute function forbid_truncate();
create trigger model_reservations_no_truncate before truncate on model_reservations
  for each statement execute function forbid_truncate();
create trigger model_usage_no_truncate before truncate on model_usage
  for each statement execute function forbid_truncate();
create trigger model_thinking_blocks_no_truncate before truncate on model_thinking_blocks
  for each statement execute function forbid_truncate();

-- A stream's head moves forward one event at a time and is never removed, so cutting the tail
-- off a stream takes disabling triggers too, and verification still compares against the head.
create function ledger_head_forward_only() returns trigger language plpgsql as $$
begin
  if tg_op = 'DELETE' or new.stream_id <> old.stream_id or new.head_seq <> old.head_seq + 1 then
    raise exception 'a ledger stream''s head only moves forward, one event at a time'
      using errcode = 'integrity_constraint_violation';
  end if;
  return new;
end $$;
create trigger ledger_streams_forward_only before update or delete on ledger_streams
  for each row execute function ledger_head_forward_only();

-- Down Migration
drop trigger ledger_streams_forward_only on ledger_streams;
drop function ledger_head_forward_only;
drop trigger ledger_events_no_truncate on ledger_events;
drop trigger ledger_streams_no_truncate on ledger_streams;
drop trigger policy_versions_no_truncate on policy_versions;
drop trigger runs_no_truncate on runs;
drop trigger model_reservations_no_truncate on model_reservations;
drop trigger model_usage_no_truncate on model_usage;
drop trigger model_thinking_blocks_no_truncate on model_thinking_blocks;
drop function forbid_truncate;
