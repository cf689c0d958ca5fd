-- Up Migration

-- A revoked run: its session token is refused everywhere from the revocation on. A row of its
-- own, since runs are immutable; runs have no other end, so a revocation is final.
create table run_revocations (
  run_id uuid primary key references runs (id),
  -- The run's invoker who revoked it, or null for the operator.
  revoked_by uuid references members (id),
  revoked_at timestamptz not null default now()
);
create trigger run_revocations_immutable before update or delete on run_revocations
  for each row execute function forbid_change();
create trigger run_revocations_no_truncate before truncate on run_revocations
  for each statement execute function forbid_truncate();

-- Down Migration
drop table run_revocations;
