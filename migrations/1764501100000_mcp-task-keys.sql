-- Up Migration

-- A task-augmented call holds its key too, from before its call is recorded until the task is
-- handed to the client: a retry of a task whose creation was answered "unavailable" re-attaches
-- to that call instead of running it a second time. Tasks already handed out let go of theirs.
update mcp_calls set open = false where kind = 'task';
drop index mcp_calls_open_key;
create unique index mcp_calls_open_key on mcp_calls (session_id, kind, call_key) where open;

-- Down Migration
drop index mcp_calls_open_key;
create unique index mcp_calls_open_key on mcp_calls (session_id, call_key)
  where kind = 'plain' and open;
