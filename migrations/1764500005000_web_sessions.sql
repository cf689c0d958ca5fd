-- Up Migration

-- Approvers' browser sign-ins. Only a hash of the session id is kept, so a copy of this table
-- signs nobody in; the CSRF token is derived from the session id and never stored either.
create table web_sessions (
  id_hash bytea primary key,
  member_id uuid not null references members (id),
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  check (expires_at > created_at)
);
create index web_sessions_member on web_sessions (member_id);
create index web_sessions_expiry on web_sessions (expires_at);

-- Down Migration
drop table web_sessions;
