-- Up Migration

-- Waiting readers (a runner's `?wait=`, the approvals list stream) are woken by these notices,
-- sent on commit by whichever process wrote the row, so the API never polls per reader.
create function notify_tool_call_settled() returns trigger language plpgsql as $$
begin
  perform pg_notify('tool_call_settled', json_build_array(new.session_id, new.tool_call_id)::text);
  return null;
end $$;

create trigger tool_calls_settled after update on tool_calls
  for each row when (new.answer is distinct from old.answer)
  execute function notify_tool_call_settled();

create function notify_approvals_changed() returns trigger language plpgsql as $$
begin
  perform pg_notify('approvals_changed', new.workspace_id::text);
  return null;
end $$;

create trigger approvals_changed after insert or update on approvals
  for each row execute function notify_approvals_changed();

-- A member's role or status decides what their approvals list shows.
create trigger members_changed after update on members
  for each row when (new.role is distinct from old.role or new.status is distinct from old.status)
  execute function notify_approvals_changed();

-- A sign-out ends that member's approvals-list streams at once.
create function notify_web_session_ended() returns trigger language plpgsql as $$
begin
  perform pg_notify('approvals_changed', m.workspace_id::text)
    from members m where m.id = old.member_id;
  return null;
end $$;

create trigger web_session_ended after delete on web_sessions
  for each row execute function notify_web_session_ended();

-- Down Migration
drop trigger web_session_ended on web_sessions;
drop function notify_web_session_ended();
drop trigger members_changed on members;
drop trigger approvals_changed on approvals;
drop function notify_approvals_changed();
drop trigger tool_calls_settled on tool_calls;
drop function notify_tool_call_settled();
