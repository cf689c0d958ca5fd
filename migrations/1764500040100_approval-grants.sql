-- Up Migration

-- Standing approvals: a decider approved a call and allowed the same for the rest of its run (or
-- a while). The scope is the gate's offer (tool and argument predicates), never free text.
create table approval_grants (
  id uuid primary key default gen_random_uuid(),
  run_id uuid not null references runs (id),
  workspace_id uuid not null references workspaces (id),
  tool text not null,
  scope jsonb not null,
  granted_by uuid not null references members (id),
  -- The approval it was given with.
  session_id text not null,
  tool_call_id text not null,
  created_at timestamptz not null default now(),
  -- Null: for the rest of the run.
  expires_at timestamptz,
  revoked_at timestamptz,
  revoked_by uuid references members (id),
  foreign key (session_id, tool_call_id) references approvals (session_id, tool_call_id),
  unique (session_id, tool_call_id),
  check ((revoked_at is null) = (revoked_by is null))
);
create index approval_grants_active on approval_grants (run_id) where revoked_at is null;

-- Down Migration
drop table approval_grants;
