-- Up Migration

-- A person who signs in through the identity provider is (issuer, subject); name and email are
-- shown, never used to tell people apart.
create table people (
  id uuid primary key default gen_random_uuid(),
  issuer text not null,
  subject text not null,
  name text,
  email text,
  created_at timestamptz not null default now(),
  signed_in_at timestamptz not null default now(),
  unique (issuer, subject)
);

-- A member is a person's membership, an operator-minted user token, or both; a membership made
-- at sign-in has no token of its own.
alter table members add column person_id uuid references people (id);
alter table members alter column token_hash drop not null;
alter table members add constraint members_token_or_person
  check (token_hash is not null or person_id is not null);
create unique index members_person on members (workspace_id, person_id) where person_id is not null;

-- How a workspace's roles follow the provider's groups: the claim that lists them, and a role
-- per group.
create table workspace_identity (
  workspace_id uuid primary key references workspaces (id),
  groups_claim text not null,
  roles jsonb not null,
  updated_at timestamptz not null default now()
);

-- A sign-in under way at the provider, bound to the browser that started it: keyed by the hash
-- of a random value only that browser's cookie holds, taken once, expiring in minutes.
create table oidc_authorizations (
  id_hash bytea primary key,
  state text not null,
  nonce text not null,
  code_verifier text not null,
  next text,
  expires_at timestamptz not null
);
create index oidc_authorizations_expiry on oidc_authorizations (expires_at);

-- A web session also ends after a while unused.
alter table web_sessions add column last_seen_at timestamptz not null default now();

-- Personal API tokens a signed-in member mints for themselves: named, expiring, revocable.
create table personal_tokens (
  id uuid primary key default gen_random_uuid(),
  member_id uuid not null references members (id),
  name text not null,
  token_hash bytea not null unique,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  revoked_at timestamptz,
  check (expires_at > created_at)
);
create index personal_tokens_member on personal_tokens (member_id);

-- Down Migration
drop table personal_tokens;
alter table web_sessions drop column last_seen_at;
drop table oidc_authorizations;
drop table workspace_identity;
drop index members_person;
alter table members drop constraint members_token_or_person;
delete from web_sessions where member_id in (select id from members where token_hash is null);
delete from members where token_hash is null;
alter table members alter column token_hash set not null;
alter table members drop column person_id;
drop table people;
