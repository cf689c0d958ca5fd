-- Up Migration

-- A removed provider keeps its row (runs reference it and its key stays sealed), but no request
-- reaches it again; its name is free for a new provider of the workspace.
alter table model_providers add column removed_at timestamptz;
alter table model_providers drop constraint model_providers_workspace_id_name_key;
create unique index model_providers_name_in_use on model_providers (workspace_id, name)
  where removed_at is null;

-- Down Migration
drop index model_providers_name_in_use;
alter table model_providers add constraint model_providers_workspace_id_name_key
  unique (workspace_id, name);
alter table model_providers drop column removed_at;
