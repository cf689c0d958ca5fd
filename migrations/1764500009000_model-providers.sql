-- Up Migration

-- A model provider: where a run's model requests go and the key they go with. The key is sealed
-- (AES-256-GCM, bound to the provider's id) and never leaves the control plane.
create table model_providers (
  id uuid primary key,
  workspace_id uuid not null references workspaces (id),
  name text not null,
  kind text not null check (kind in ('anthropic')),
  base_url text not null,
  sealed_credential bytea not null,
  created_at timestamptz not null default now(),
  unique (workspace_id, name),
  -- The target of runs' composite reference below.
  unique (id, workspace_id)
);

-- Frozen with the run like its policy; a provider of another workspace cannot be named.
alter table runs add column model_provider_id uuid;
alter table runs add constraint runs_model_provider_in_workspace
  foreign key (model_provider_id, workspace_id) references model_providers (id, workspace_id);

-- Thinking blocks the gate saw a provider produce, by a digest of their signature (or of a
-- redacted block's data), with the output tokens of the response that carried them: a block
-- sent back later costs no more input than that response's output. Append-only.
create table model_thinking_blocks (
  digest text primary key,
  workspace_id uuid not null references workspaces (id),
  reservation_id text not null references model_reservations (id),
  output_tokens bigint not null check (output_tokens >= 0),
  recorded_at timestamptz not null default now()
);
create trigger model_thinking_blocks_append_only before update or delete on model_thinking_blocks
  for each row execute function forbid_change();

-- Down Migration
drop table model_thinking_blocks;
alter table runs drop constraint runs_model_provider_in_workspace;
alter table runs drop column model_provider_id;
drop table model_providers;
