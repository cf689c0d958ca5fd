-- Up Migration

-- Where a workspace's approval notices go. The signing secret is sealed (AES-256-GCM, bound to
-- the endpoint's id) and leaves the control plane only as a signature.
create table webhook_endpoints (
  id uuid primary key,
  workspace_id uuid not null references workspaces (id),
  url text not null,
  sealed_secret bytea not null,
  events text[] not null check (
    cardinality(events) > 0 and events <@ array['approval.requested', 'approval.decided']
  ),
  -- Tool arguments travel only to a workspace that asked for them.
  include_arguments boolean not null default false,
  status text not null default 'active' check (status in ('active', 'deleted')),
  created_at timestamptz not null default now()
);
create index webhook_endpoints_active on webhook_endpoints (workspace_id) where status = 'active';

-- One notice of one event to one endpoint, written in the transaction that records the event.
-- Its id is the webhook-id a receiver deduplicates on; retries keep it.
create table webhook_deliveries (
  id uuid primary key default gen_random_uuid(),
  endpoint_id uuid not null references webhook_endpoints (id),
  event text not null check (event in ('approval.requested', 'approval.decided')),
  session_id text not null,
  tool_call_id text not null,
  payload jsonb not null,
  status text not null default 'pending' check (status in ('pending', 'delivered', 'failed')),
  attempts integer not null default 0,
  last_status integer,
  last_error text,
  last_attempt_at timestamptz,
  delivered_at timestamptz,
  created_at timestamptz not null default now(),
  unique (endpoint_id, event, session_id, tool_call_id),
  check ((status = 'delivered') = (delivered_at is not null))
);
create index webhook_deliveries_by_call on webhook_deliveries (session_id, tool_call_id, event);

-- Down Migration
drop table webhook_deliveries;
drop table webhook_endpoints;
