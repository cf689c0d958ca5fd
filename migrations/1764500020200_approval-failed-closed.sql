-- Up Migration

-- An approval whose gate denied while it waited (the gate workflow terminated, or a stage that
-- could not go on): settled by nobody, so that a person deciding later is told it was decided
-- and the approval never disagrees with the call's recorded deny.
alter table approvals drop constraint approvals_status_check;
alter table approvals add constraint approvals_status_check
  check (status in ('pending', 'approved', 'denied', 'expired', 'failed_closed'));
alter table approvals add constraint approvals_failed_closed_by_nobody
  check (status <> 'failed_closed' or (decided_by is null and decision = 'deny'));

-- Down Migration
alter table approvals drop constraint approvals_failed_closed_by_nobody;
alter table approvals drop constraint approvals_status_check;
alter table approvals add constraint approvals_status_check
  check (status in ('pending', 'approved', 'denied', 'expired'));
