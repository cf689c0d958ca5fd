-- Up Migration

-- An allowed brokered call the runner asked the control plane to carry out is final only once
-- its result is recorded; retries and waiting readers must not take the bare decision for it.
alter table tool_calls add column awaits_result boolean not null default false;

-- Down Migration
alter table tool_calls drop column awaits_result;
