-- Up Migration

-- A brokered MCP server and its current photograph. The credential is sealed (AES-256-GCM);
-- the photograph is replaced by a refresh, while runs keep what they froze.
create table connections (
  id uuid primary key,
  workspace_id uuid not null references workspaces (id),
  name text not null,
  kind text not null check (kind in ('org', 'personal')),
  owner_user_id uuid references members (id),
  url text not null,
  sealed_credential bytea not null,
  auth_generation integer not null default 1 check (auth_generation >= 1),
  status text not null default 'active' check (status in ('active', 'revoked')),
  tools jsonb not null,
  unusable jsonb not null default '[]',
  digest text not null,
  photographed_at timestamptz not null default now(),
  created_at timestamptz not null default now(),
  check ((kind = 'personal') = (owner_user_id is not null))
);
create unique index connections_active_name on connections (workspace_id, name) where status = 'active';

-- At most once: a brokered call is marked started before the upstream is called, so a retried
-- activity never calls it twice; the result is kept to answer retried requests.
create table brokered_calls (
  session_id text not null,
  tool_call_id text not null,
  started_at timestamptz not null default now(),
  finished_at timestamptz,
  result jsonb,
  primary key (session_id, tool_call_id),
  foreign key (session_id, tool_call_id) references tool_calls (session_id, tool_call_id)
);

alter table capability_bundles add column command jsonb;
alter table capability_bundles add column unusable jsonb not null default '[]';

-- Down Migration
alter table capability_bundles drop column unusable;
alter table capability_bundles drop column command;
drop table brokered_calls;
drop table connections;
