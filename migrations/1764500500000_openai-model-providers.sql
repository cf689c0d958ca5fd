-- Up Migration

-- A provider may speak OpenAI's APIs (Chat Completions, Responses) as well as Anthropic's.
alter table model_providers drop constraint model_providers_kind_check;
alter table model_providers add constraint model_providers_kind_check
  check (kind in ('anthropic', 'openai'));

-- Down Migration
alter table model_providers drop constraint model_providers_kind_check;
alter table model_providers add constraint model_providers_kind_check
  check (kind in ('anthropic'));
