-- Up Migration

-- A run's token counters. `runs` is immutable, so what changes lives here: one row per run,
-- opened with the run (trigger below), so admission, the budget stage and GET always find it.
-- Admissions lock this row, which is what serialises the balance check.
create table run_budgets (
  run_id uuid primary key references runs (id),
  max_tokens bigint not null check (max_tokens > 0),
  held_tokens bigint not null default 0 check (held_tokens >= 0),
  used_tokens bigint not null default 0 check (used_tokens >= 0),
  -- Admission keeps used + held + booking within max, so holds alone never pass the allowance.
  -- Used may: real usage is counted as reported, even past what was booked.
  check (held_tokens <= max_tokens)
);

-- One row per (session, request id): the first answer to an admission, refused or held, and
-- then the hold's fate. The key is derived from the pair ('/' is in neither id), so a retry
-- finds it, and it becomes the usage entry's external id.
create table model_reservations (
  id text primary key,
  session_id text not null references runs (session_id),
  request_id text not null,
  run_id uuid not null references run_budgets (run_id),
  request_digest text not null,
  model text not null,
  max_output_tokens bigint not null check (max_output_tokens > 0),
  input_bound_tokens bigint not null check (input_bound_tokens > 0),
  booked_tokens bigint not null,
  status text not null check (status in ('refused', 'held', 'expired', 'reconciled')),
  created_at timestamptz not null default now(),
  expired_at timestamptz,
  reconciled_at timestamptz,
  unique (session_id, request_id),
  check (id = session_id || '/' || request_id),
  check (booked_tokens = max_output_tokens + input_bound_tokens),
  -- Each timestamp says how the hold ended; a late drain has both, expiry first.
  check ((status = 'reconciled') = (reconciled_at is not null)),
  check (status <> 'expired' or expired_at is not null),
  check (expired_at is null or status in ('expired', 'reconciled')),
  check (expired_at >= created_at),
  check (reconciled_at >= coalesce(expired_at, created_at))
);
-- What the sweep scans: holds only, oldest first.
create index model_reservations_held on model_reservations (created_at) where status = 'held';

-- A hold moves forward only (held -> expired | reconciled, expired -> reconciled) and nothing
-- it booked ever changes; a refusal is final.
create function model_reservation_transition() returns trigger language plpgsql as $$
begin
  if (new.id, new.session_id, new.request_id, new.run_id, new.request_digest, new.model,
      new.max_output_tokens, new.input_bound_tokens, new.booked_tokens, new.created_at)
     is distinct from
     (old.id, old.session_id, old.request_id, old.run_id, old.request_digest, old.model,
      old.max_output_tokens, old.input_bound_tokens, old.booked_tokens, old.created_at)
  then
    raise exception 'a reservation''s booking is immutable'
      using errcode = 'integrity_constraint_violation';
  end if;
  if not ((old.status = 'held' and new.status in ('expired', 'reconciled'))
       or (old.status = 'expired' and new.status = 'reconciled')) then
    raise exception 'a reservation cannot go from % to %', old.status, new.status
      using errcode = 'integrity_constraint_violation';
  end if;
  return new;
end $$;
create trigger model_reservations_forward_only before update on model_reservations
  for each row execute function model_reservation_transition();
create trigger model_reservations_kept before delete on model_reservations
  for each row execute function forbid_change();

-- Real usage, one entry per reservation at most: the unique external id is what makes a retry
-- or a late drain count once. Append-only.
create table model_usage (
  id bigint generated always as identity primary key,
  external_id text not null unique references model_reservations (id),
  session_id text not null references runs (session_id),
  input_tokens bigint not null check (input_tokens >= 0),
  output_tokens bigint not null check (output_tokens >= 0),
  used_tokens bigint generated always as (input_tokens + output_tokens) stored,
  -- The hold this entry released: the booking, or 0 when the sweep had released it already.
  released_tokens bigint not null check (released_tokens >= 0),
  recorded_at timestamptz not null default now()
);
create trigger model_usage_append_only before update or delete on model_usage
  for each row execute function forbid_change();

create function open_run_budget() returns trigger language plpgsql as $$
begin
  insert into run_budgets (run_id, max_tokens) values (new.id, new.max_tokens);
  return null;
end $$;
create trigger runs_open_budget after insert on runs
  for each row execute function open_run_budget();

insert into run_budgets (run_id, max_tokens) select id, max_tokens from runs;

-- Down Migration
drop trigger runs_open_budget on runs;
drop function open_run_budget;
drop table model_usage;
drop table model_reservations;
drop function model_reservation_transition;
drop table run_budgets;
