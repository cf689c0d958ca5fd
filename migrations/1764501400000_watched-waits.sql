-- Up Migration

-- A notice wakes only a reader that waits, and most writes have none: a call answered in the
-- process that started it, a model request. So a ledger stream's head and a tool call carry
-- until when a reader watches them, and their writers notify only while it is watched. A reader
-- sets the watch before it reads, and the watch is a write to the very row the writer locks: a
-- writer that locks the row after the watch commits sees it (PostgreSQL gives a locking
-- statement the row's latest version), and a watch that comes while a writer holds the row waits
-- for that commit, so the reader's read after it finds what was written. Either way no wake-up is
-- lost. A watch ends by itself: a reader that went away costs notices until then, nothing else.
alter table ledger_streams add column watched_until timestamptz;
alter table tool_calls add column watched_until timestamptz;

-- The head still only moves forward, one event at a time; a watch moves nothing else.
create or replace function ledger_head_forward_only() returns trigger language plpgsql as $$
begin
  if tg_op = 'UPDATE' and new.stream_id = old.stream_id and new.head_seq = old.head_seq
    and new.head_hash = old.head_hash then
    return new;
  end if;
  if tg_op = 'DELETE' or new.stream_id <> old.stream_id or new.head_seq <> old.head_seq + 1 then
    raise exception 'a ledger stream''s head only moves forward, one event at a time'
      using errcode = 'integrity_constraint_violation';
  end if;
  return new;
end $$;

drop trigger tool_calls_settled on tool_calls;
create trigger tool_calls_settled after update on tool_calls
  for each row when (new.answer is distinct from old.answer and new.watched_until > now())
  execute function notify_tool_call_settled();

-- Down Migration
drop trigger tool_calls_settled on tool_calls;
create trigger tool_calls_settled after update on tool_calls
  for each row when (new.answer is distinct from old.answer)
  execute function notify_tool_call_settled();

create or replace function ledger_head_forward_only() returns trigger language plpgsql as $$
begin
  if tg_op = 'DELETE' or new.stream_id <> old.stream_id or new.head_seq <> old.head_seq + 1 then
    raise exception 'a ledger stream''s head only moves forward, one event at a time'
      using errcode = 'integrity_constraint_violation';
  end if;
  return new;
end $$;

alter table tool_calls drop column watched_until;
alter table ledger_streams drop column watched_until;
