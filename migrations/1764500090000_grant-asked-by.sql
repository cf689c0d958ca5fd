-- Up Migration

-- A grant answers only what asked the way its approval asked: the rule that required approval
-- (null: the policy's default) of the policy version the run froze.
alter table approval_grants add column rule_id text, add column policy_version integer;
update approval_grants g set rule_id = a.rule_id, policy_version = a.policy_version
  from approvals a where a.session_id = g.session_id and a.tool_call_id = g.tool_call_id;
alter table approval_grants alter column policy_version set not null;

-- Grants given before scopes were exact covered more than their approvers saw: they end now.
update approval_grants set expires_at = now()
  where revoked_at is null and (expires_at is null or expires_at > now());

-- Down Migration
alter table approval_grants drop column rule_id, drop column policy_version;
