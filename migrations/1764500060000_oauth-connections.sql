-- Up Migration

-- A connection an owner authorizes through OAuth: it waits for that authorization, and a refresh
-- the server refuses leaves it waiting for the owner again. Its sealed credential then holds the
-- OAuth client and tokens. A name is held from creation until revocation, not only while active.
alter table connections drop constraint connections_status_check;
alter table connections add constraint connections_status_check
  check (status in ('awaiting_authorization', 'active', 'needs_reauthorization', 'revoked'));
alter table connections add column credential_type text not null default 'bearer'
  check (credential_type in ('bearer', 'oauth'));
alter table connections add column scopes text;
alter table connections add column status_reason text;
alter table connections add column last_used_at timestamptz;
drop index connections_active_name;
create unique index connections_live_name on connections (workspace_id, name)
  where status <> 'revoked';

-- One authorization a person started: the state is stored only as a hash, the PKCE verifier and
-- the client sealed; it is used at most once, by that person, before it expires.
create table oauth_authorizations (
  state_hash bytea primary key,
  connection_id uuid not null references connections (id),
  member_id uuid not null references members (id),
  sealed_attempt bytea not null,
  expires_at timestamptz not null,
  used_at timestamptz,
  created_at timestamptz not null default now()
);
create index oauth_authorizations_connection on oauth_authorizations (connection_id);

-- Down Migration
drop table oauth_authorizations;
drop index connections_live_name;
delete from connections where status in ('awaiting_authorization', 'needs_reauthorization');
create unique index connections_active_name on connections (workspace_id, name)
  where status = 'active';
alter table connections drop column last_used_at;
alter table connections drop column status_reason;
alter table connections drop column scopes;
alter table connections drop column credential_type;
alter table connections drop constraint connections_status_check;
alter table connections add constraint connections_status_check
  check (status in ('active', 'revoked'));
