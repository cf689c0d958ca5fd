-- Up Migration

create table workspaces (
  id uuid primary key default gen_random_uuid(),
  name text not null,
  created_at timestamptz not null default now()
);

create table members (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references workspaces (id),
  name text not null,
  role text not null check (role in ('member', 'approver', 'admin')),
  status text not null default 'active' check (status in ('active', 'suspended')),
  -- SHA-256 of the bearer token; the token itself is shown once and never stored.
  token_hash bytea not null unique,
  created_at timestamptz not null default now()
);
create index members_workspace on members (workspace_id);

create table capability_bundles (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references workspaces (id),
  name text not null,
  version text not null,
  tools jsonb not null,
  digest text not null,
  created_at timestamptz not null default now(),
  unique (workspace_id, name, version)
);

create table policies (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references workspaces (id),
  name text not null,
  latest_version integer not null check (latest_version >= 1),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create table policy_versions (
  policy_id uuid not null references policies (id),
  version integer not null check (version >= 1),
  body jsonb not null,
  created_at timestamptz not null default now(),
  primary key (policy_id, version)
);

create table runs (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references workspaces (id),
  session_id text not null unique,
  session_token_hash bytea not null unique,
  invoked_by uuid not null references members (id),
  source jsonb not null,
  trust_tier text not null check (trust_tier in ('trusted', 'read_only')),
  autonomy text not null check (autonomy in ('supervised', 'autonomous')),
  policy_id uuid not null,
  policy_version integer not null,
  toolset jsonb not null,
  toolset_digest text not null,
  max_tokens bigint not null check (max_tokens > 0),
  created_at timestamptz not null default now(),
  foreign key (policy_id, policy_version) references policy_versions (policy_id, version)
);

-- The state of record of one gate call: the request as first received (its digest decides
-- whether a retry is the same call) and, once made, the decision and the answer given.
create table tool_calls (
  session_id text not null references runs (session_id),
  tool_call_id text not null,
  run_id uuid not null references runs (id),
  tool text not null,
  request_digest text not null,
  status text not null default 'evaluating'
    check (status in ('evaluating', 'pending_approval', 'decided')),
  decision text check (decision in ('allow', 'deny')),
  source text,
  answer jsonb,
  created_at timestamptz not null default now(),
  decided_at timestamptz,
  primary key (session_id, tool_call_id),
  check ((status = 'decided') = (decision is not null and answer is not null))
);
create index tool_calls_run on tool_calls (run_id);

-- Frozen means immutable: a policy version and a run's frozen columns never change.
create function forbid_change() returns trigger language plpgsql as $$
begin
  raise exception '% is immutable', tg_table_name using errcode = 'integrity_constraint_violation';
end $$;

create trigger policy_versions_immutable before update or delete on policy_versions
  for each row execute function forbid_change();
create trigger runs_immutable before update or delete on runs
  for each row execute function forbid_change();

-- Down Migration
drop table tool_calls;
drop table runs;
drop function forbid_change cascade;
drop table policy_versions;
drop table policies;
drop table capability_bundles;
drop table members;
drop table workspaces;
