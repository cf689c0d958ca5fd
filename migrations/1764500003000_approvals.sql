-- Up Migration

-- One approval per gated call, keyed like the call. The row is the source of truth: the
-- workflow re-reads it, the deciding transaction settles it by compare-and-swap.
create table approvals (
  session_id text not null,
  tool_call_id text not null,
  run_id uuid not null references runs (id),
  workspace_id uuid not null references workspaces (id),
  tool text not null,
  -- What an approver must see to decide. Never copied to the ledger.
  arguments jsonb not null,
  rule_id text,
  policy_version integer not null,
  -- Who may decide: the personal connection's owner alone, or the workspace's approvers.
  authority text not null check (authority in ('owner', 'workspace_approvers')),
  owner_user_id uuid references members (id),
  status text not null default 'pending' check (status in ('pending', 'approved', 'denied', 'expired')),
  decision text check (decision in ('allow', 'deny')),
  decided_by uuid references members (id),
  reason text,
  on_timeout text not null check (on_timeout in ('allow', 'deny')),
  requested_at timestamptz not null default now(),
  expires_at timestamptz not null,
  decided_at timestamptz,
  primary key (session_id, tool_call_id),
  foreign key (session_id, tool_call_id) references tool_calls (session_id, tool_call_id),
  check ((authority = 'owner') = (owner_user_id is not null)),
  check ((status = 'pending') = (decision is null)),
  check (status <> 'expired' or decided_by is null)
);
create index approvals_pending on approvals (workspace_id) where status = 'pending';

-- Down Migration
drop table approvals;
