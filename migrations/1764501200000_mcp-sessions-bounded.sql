-- Up Migration

-- A run keeps at most so many remote MCP sessions (src/store/mcp-sessions.ts): opening one more
-- ends the oldest, and a session ended is deleted, not kept, so a row is an open session.
delete from mcp_sessions where ended_at is not null;
alter table mcp_sessions drop column ended_at;
create index mcp_sessions_run on mcp_sessions (run_id, created_at desc);

-- Down Migration
drop index mcp_sessions_run;
alter table mcp_sessions add column ended_at timestamptz;
