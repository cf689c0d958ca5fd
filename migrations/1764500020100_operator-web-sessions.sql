-- Up Migration

-- The operator may sign in to the web form too, for the Temporal UI's codec only: such a
-- session has no member, only a binding to the operator key it was opened with (an HMAC of the
-- key keyed by the session id, which is never stored), so a new operator key ends it and a copy
-- of this table cannot test guesses of the key.
alter table web_sessions alter column member_id drop not null;
alter table web_sessions add column operator_key_binding bytea;
alter table web_sessions add constraint web_sessions_member_or_operator
  check ((member_id is null) <> (operator_key_binding is null));

-- Down Migration
delete from web_sessions where member_id is null;
alter table web_sessions drop constraint web_sessions_member_or_operator;
alter table web_sessions drop column operator_key_binding;
alter table web_sessions alter column member_id set not null;
