-- Up Migration

-- A remote MCP client's session (`Mcp-Session-Id`), bound to the run whose token opened it, so
-- that any API process answers it and a restart loses nothing. It holds no state of the calls.
create table mcp_sessions (
  id uuid primary key,
  run_id uuid not null references runs (id),
  protocol_version text not null,
  created_at timestamptz not null default now(),
  ended_at timestamptz
);

-- A tool call made through `/mcp`: as a task (the task id is the tool-call id, reached only
-- through its own run's session), or plainly, when it outlasted the client's wait. A plain call
-- stays open until its decision is handed to the client; the same tool with the same arguments
-- in the same run re-attaches to the open one, so a retry never asks twice or runs twice.
create table mcp_calls (
  session_id text not null,
  tool_call_id text not null,
  kind text not null check (kind in ('task', 'plain')),
  call_key text not null,
  open boolean not null default true,
  -- A task the client cancelled (tasks/cancel) before anyone decided its approval.
  cancelled boolean not null default false,
  created_at timestamptz not null default now(),
  -- No reference to tool_calls: a plain call's key is taken before the call is recorded, so that
  -- a call whose first answer was "unavailable" is the one a retry re-attaches to.
  primary key (session_id, tool_call_id)
);
create unique index mcp_calls_open_key on mcp_calls (session_id, call_key)
  where kind = 'plain' and open;

-- Down Migration
drop table mcp_calls;
drop table mcp_sessions;
