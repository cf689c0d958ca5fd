-- Up Migration

-- The approvers' lists: the pending ones oldest first, the decided ones newest first, by workspace.
create index approvals_pending_by_age on approvals (workspace_id, requested_at)
  where status = 'pending';
create index approvals_decided_by_time on approvals (workspace_id, decided_at desc)
  where status <> 'pending';

-- Down Migration
drop index approvals_decided_by_time;
drop index approvals_pending_by_age;
