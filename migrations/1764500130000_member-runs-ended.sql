-- Up Migration
-- When a member's access was ended on purpose (the operator's suspension, the identity provider's
-- deactivation or deletion): every run they invoked before it reads as revoked, for good.
alter table members add column runs_ended_at timestamptz;
create index runs_invoked_by on runs (invoked_by, created_at);

-- Down Migration
drop index runs_invoked_by;
alter table members drop column runs_ended_at;
