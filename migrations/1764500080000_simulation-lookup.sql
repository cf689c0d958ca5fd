-- Up Migration

-- A simulation finds its policy's sessions with calls in a window: the policy's runs, then each
-- run's calls by time.
create index runs_policy on runs (policy_id);
create index tool_calls_run_created on tool_calls (run_id, created_at);
drop index tool_calls_run;

-- Down Migration
create index tool_calls_run on tool_calls (run_id);
drop index tool_calls_run_created;
drop index runs_policy;
