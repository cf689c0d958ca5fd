-- Up Migration

-- The version a policy's calls are also evaluated against, without effect on their decisions:
-- a change runs beside the real one before it is made. Null: no shadow.
alter table policies add column shadow_version integer;
alter table policies add constraint policies_shadow_version_known
  check (shadow_version between 1 and latest_version);

-- Down Migration
alter table policies drop constraint policies_shadow_version_known;
alter table policies drop column shadow_version;
