-- Up Migration

-- The bearer token a workspace's identity provider provisions with (SCIM 2.0): one per
-- workspace, stored only as its SHA-256; minting another replaces it.
create table scim_tokens (
  workspace_id uuid primary key references workspaces (id),
  token_hash bytea not null unique,
  created_at timestamptz not null default now()
);

-- What the identity provider provisioned, as it last wrote it (attributes by their schema's
-- names). A User is a member of the workspace (its id is the member's id); a Group is one of the
-- provider's groups, whose members the workspace's identity mapping turns into roles.
create table scim_resources (
  id uuid primary key,
  workspace_id uuid not null references workspaces (id),
  kind text not null check (kind in ('User', 'Group')),
  member_id uuid unique references members (id),
  attributes jsonb not null,
  version integer not null default 1,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  check ((kind = 'User') = (member_id is not null)),
  check (kind <> 'User' or id = member_id)
);
create unique index scim_users_user_name on scim_resources
  (workspace_id, lower(attributes ->> 'userName')) where kind = 'User';
create unique index scim_groups_display_name on scim_resources
  (workspace_id, (attributes ->> 'displayName')) where kind = 'Group';
create index scim_group_members on scim_resources using gin ((attributes -> 'members'))
  where kind = 'Group';

-- A provisioned member exists before its person first signs in: it has neither a user token nor
-- a person yet, and its role and status follow the provider. An operator's suspension is sticky:
-- only the operator's reactivation lifts it, never a sign-in or the provider.
alter table members add column provisioned boolean not null default false;
alter table members add column suspended_by_operator boolean not null default false;
alter table members drop constraint members_token_or_person;
alter table members add constraint members_token_person_or_provisioned
  check (token_hash is not null or person_id is not null or provisioned);
alter table members add constraint members_operator_suspension_holds
  check (not suspended_by_operator or status = 'suspended');

-- A web session's handle for the operator to list and end it; the session id is never stored.
alter table web_sessions add column id uuid not null default gen_random_uuid();
create unique index web_sessions_id on web_sessions (id);

-- A grant ends with its grantor's access: revoked by nobody, for a reason.
alter table approval_grants add column revoked_because text
  check (revoked_because in ('grantor_access_ended'));
alter table approval_grants drop constraint approval_grants_check;
alter table approval_grants add constraint approval_grants_revocation check (
  (revoked_at is null and revoked_by is null and revoked_because is null)
  or (revoked_at is not null and (revoked_by is not null or revoked_because is not null))
);
create index approval_grants_granted_by on approval_grants (granted_by) where revoked_at is null;

-- What changed a member's access, and by whom: append-only.
create table member_access_events (
  seq bigserial primary key,
  workspace_id uuid not null references workspaces (id),
  member_id uuid references members (id),
  type text not null,
  -- The session, token, grant or connection it ended; null for the membership itself.
  subject_id uuid,
  actor text not null check (actor in ('operator', 'identity_provider', 'sign_in', 'member')),
  at timestamptz not null default now()
);
create index member_access_events_member on member_access_events (member_id, seq);
create trigger member_access_events_append_only before update or delete on member_access_events
  for each row execute function forbid_change();

-- Down Migration
drop table member_access_events;
drop index approval_grants_granted_by;
alter table approval_grants drop constraint approval_grants_revocation;
-- A grant that ended with its grantor's access stays ended, as revoked by its grantor.
update approval_grants set revoked_by = granted_by where revoked_at is not null and revoked_by is null;
alter table approval_grants add constraint approval_grants_check
  check ((revoked_at is null) = (revoked_by is null));
alter table approval_grants drop column revoked_because;
drop index web_sessions_id;
alter table web_sessions drop column id;
alter table members drop constraint members_operator_suspension_holds;
alter table members drop constraint members_token_person_or_provisioned;
delete from scim_resources;
alter table members add constraint members_token_or_person
  check (token_hash is not null or person_id is not null) not valid;
alter table members drop column suspended_by_operator;
alter table members drop column provisioned;
drop table scim_resources;
drop table scim_tokens;
