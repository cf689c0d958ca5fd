-- Up Migration

-- What an admin offers an interactive MCP client: a run's template. A run created from it takes
-- its fields as they are at that moment; editing a profile changes only the runs created after.
create table run_profiles (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references workspaces (id),
  name text not null,
  description text not null default '',
  policy_id uuid not null references policies (id),
  tools jsonb not null,
  max_tokens integer not null check (max_tokens > 0),
  autonomy text not null check (autonomy in ('supervised', 'autonomous')),
  trust_tier text not null check (trust_tier in ('trusted', 'read_only')),
  model_provider_id uuid references model_providers (id),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  deleted_at timestamptz
);
create unique index run_profiles_name on run_profiles (workspace_id, lower(name))
  where deleted_at is null;

-- A client registered itself (RFC 7591). Its secret, when it has one, is stored as its SHA-256.
create table oauth_clients (
  client_id text primary key,
  secret_hash bytea,
  redirect_uris text[] not null,
  token_endpoint_auth_method text not null
    check (token_endpoint_auth_method in ('none', 'client_secret_post', 'client_secret_basic')),
  metadata jsonb not null,
  created_at timestamptz not null default now()
);

-- An authorization request waiting for its person to sign in and pick a profile.
create table oauth_authorization_requests (
  id uuid primary key default gen_random_uuid(),
  client_id text not null references oauth_clients (client_id),
  redirect_uri text not null,
  state text,
  code_challenge text not null,
  resource text not null,
  scope text,
  expires_at timestamptz not null
);

-- One person's consent: a run created from a profile, for one client and one resource. Every
-- code and token it issues belongs to it; revoking it ends them all.
create table oauth_grants (
  id uuid primary key default gen_random_uuid(),
  client_id text not null references oauth_clients (client_id),
  member_id uuid not null references members (id),
  run_id uuid not null references runs (id),
  profile_id uuid not null references run_profiles (id),
  resource text not null,
  scope text,
  created_at timestamptz not null default now(),
  revoked_at timestamptz,
  revoked_because text check (revoked_because in ('code_reused', 'refresh_token_reused', 'client_revoked'))
);
create index oauth_grants_run on oauth_grants (run_id);
create index oauth_grants_member on oauth_grants (member_id);

create table oauth_codes (
  code_hash bytea primary key,
  grant_id uuid not null references oauth_grants (id),
  redirect_uri text not null,
  code_challenge text not null,
  expires_at timestamptz not null,
  redeemed_at timestamptz
);

-- Access and refresh tokens, as their SHA-256 only. A refresh token is used once: its
-- successor's hash is kept beside it, so a second presentation within the grace is answered
-- with the same successor (derived again, never stored) and a later one ends the grant.
create table oauth_tokens (
  token_hash bytea primary key,
  grant_id uuid not null references oauth_grants (id),
  kind text not null check (kind in ('access', 'refresh')),
  expires_at timestamptz not null,
  used_at timestamptz,
  successor_hash bytea,
  created_at timestamptz not null default now(),
  check (kind = 'refresh' or (used_at is null and successor_hash is null))
);
create index oauth_tokens_grant on oauth_tokens (grant_id);

-- Down Migration
drop table oauth_tokens;
drop table oauth_codes;
drop table oauth_grants;
drop table oauth_authorization_requests;
drop table oauth_clients;
drop table run_profiles;
