-- Up Migration

-- Money is counted in nano-dollars (1e-9 USD), as integers: a price is nano-dollars per token, a
-- cost is tokens times prices, so every figure is exact and sums never round.

-- The operator's prices, per provider kind and model, in place of the shipped default
-- (src/domain/budget/default-prices.json) for that model. `long_context` holds tiers
-- [{above_input_tokens, input, output, cache_write, cache_read}]: a request whose input (cache
-- reads and writes included) passes a tier is priced at it whole.
create table model_prices (
  provider_kind text not null check (provider_kind in ('anthropic', 'openai')),
  model text not null check (model ~ '^[A-Za-z0-9._:@/-]{1,128}$'),
  input_nanos bigint not null check (input_nanos >= 0),
  output_nanos bigint not null check (output_nanos >= 0),
  cache_write_nanos bigint not null check (cache_write_nanos >= 0),
  cache_read_nanos bigint not null check (cache_read_nanos >= 0),
  long_context jsonb not null default '[]' check (jsonb_typeof(long_context) = 'array'),
  updated_at timestamptz not null default now(),
  primary key (provider_kind, model)
);

-- What a provider's models without a price are charged at, when the operator names it; a
-- provider without one refuses them.
create table model_price_fallbacks (
  provider_id uuid primary key references model_providers (id),
  input_nanos bigint not null check (input_nanos >= 0),
  output_nanos bigint not null check (output_nanos >= 0),
  cache_write_nanos bigint not null check (cache_write_nanos >= 0),
  cache_read_nanos bigint not null check (cache_read_nanos >= 0),
  long_context jsonb not null default '[]' check (jsonb_typeof(long_context) = 'array'),
  updated_at timestamptz not null default now()
);

-- A run's spend in money beside its tokens, whatever caps apply: what its view shows.
alter table run_budgets
  add column held_nanos bigint not null default 0 check (held_nanos >= 0),
  add column used_nanos bigint not null default 0 check (used_nanos >= 0);

-- A cap on the model spend of one level: a run, a person (a member), a team (an identity
-- provider's group, by its display name) or the whole workspace; per UTC day, UTC month or for
-- life; in money, tokens or both.
create table spend_budgets (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references workspaces (id),
  level text not null check (level in ('run', 'person', 'team', 'workspace')),
  run_id uuid references runs (id),
  member_id uuid references members (id),
  team text check (length(team) between 1 and 256),
  period text not null check (period in ('day', 'month', 'life')),
  max_nanos bigint check (max_nanos > 0),
  max_tokens bigint check (max_tokens > 0),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  check (max_nanos is not null or max_tokens is not null),
  check ((level = 'run') = (run_id is not null)),
  check ((level = 'person') = (member_id is not null)),
  check ((level = 'team') = (team is not null))
);
create unique index spend_budgets_one_per_level on spend_budgets
  (workspace_id, level, coalesce(run_id::text, member_id::text, team, ''), period);

-- The start of the period a moment falls in, UTC; a budget for life has one window.
create function spend_window_start(period text, at timestamptz) returns timestamptz
  language sql stable as $$
  select case period
    when 'day' then date_trunc('day', at, 'UTC')
    when 'month' then date_trunc('month', at, 'UTC')
    else '-infinity'::timestamptz
  end
$$;

-- One budget's counters in one period. Admission locks these rows in budget id order, after the
-- run's budget row, and keeps used + held + booking within each cap.
create table spend_budget_windows (
  budget_id uuid not null references spend_budgets (id) on delete cascade,
  window_start timestamptz not null,
  held_nanos bigint not null default 0 check (held_nanos >= 0),
  used_nanos bigint not null default 0 check (used_nanos >= 0),
  held_tokens bigint not null default 0 check (held_tokens >= 0),
  used_tokens bigint not null default 0 check (used_tokens >= 0),
  primary key (budget_id, window_start)
);

-- What a hold was booked against, so that its settlement or expiry moves exactly those counters
-- (in the period it was admitted in), whatever budgets are set meanwhile.
create table model_reservation_holds (
  reservation_id text not null references model_reservations (id),
  budget_id uuid not null,
  window_start timestamptz not null,
  primary key (reservation_id, budget_id),
  foreign key (budget_id, window_start) references spend_budget_windows (budget_id, window_start)
    on delete cascade
);
create index model_reservation_holds_window on model_reservation_holds (budget_id, window_start);

-- The price a reservation was booked at (kept for its settlement), its worst-case cost, and the
-- level that refused it. Reservations made before prices have none of these.
alter table model_reservations
  add column provider_kind text check (provider_kind in ('anthropic', 'openai')),
  add column price jsonb,
  add column booked_nanos bigint check (booked_nanos >= 0),
  add column expiry_charged_nanos bigint check (expiry_charged_nanos >= 0),
  add column refused_by text;

-- The cost of the exchange, from the booked price and the reported usage; null before prices.
alter table model_usage add column cost_nanos bigint check (cost_nanos >= 0);

-- The booking (price and cost included) and the expiry's charge never change once written.
create or replace function model_reservation_transition() returns trigger language plpgsql as $$
begin
  if (new.id, new.session_id, new.request_id, new.run_id, new.request_digest, new.model,
      new.max_output_tokens, new.input_bound_tokens, new.booked_tokens, new.created_at,
      new.made_by, new.provider_kind, new.price, new.booked_nanos, new.refused_by)
     is distinct from
     (old.id, old.session_id, old.request_id, old.run_id, old.request_digest, old.model,
      old.max_output_tokens, old.input_bound_tokens, old.booked_tokens, old.created_at,
      old.made_by, old.provider_kind, old.price, old.booked_nanos, old.refused_by)
  then
    raise exception 'a reservation''s booking is immutable'
      using errcode = 'integrity_constraint_violation';
  end if;
  if (old.expiry_charged_tokens is not null
      and new.expiry_charged_tokens is distinct from old.expiry_charged_tokens)
     or (old.expiry_charged_nanos is not null
      and new.expiry_charged_nanos is distinct from old.expiry_charged_nanos) then
    raise exception 'what an expiry charged is immutable'
      using errcode = 'integrity_constraint_violation';
  end if;
  if not ((old.status = 'held' and new.status in ('expired', 'reconciled'))
       or (old.status = 'expired' and new.status = 'reconciled')) then
    raise exception 'a reservation cannot go from % to %', old.status, new.status
      using errcode = 'integrity_constraint_violation';
  end if;
  return new;
end $$;

-- Down Migration
create or replace function model_reservation_transition() returns trigger language plpgsql as $$
begin
  if (new.id, new.session_id, new.request_id, new.run_id, new.request_digest, new.model,
      new.max_output_tokens, new.input_bound_tokens, new.booked_tokens, new.created_at,
      new.made_by)
     is distinct from
     (old.id, old.session_id, old.request_id, old.run_id, old.request_digest, old.model,
      old.max_output_tokens, old.input_bound_tokens, old.booked_tokens, old.created_at,
      old.made_by)
  then
    raise exception 'a reservation''s booking is immutable'
      using errcode = 'integrity_constraint_violation';
  end if;
  if old.expiry_charged_tokens is not null
     and new.expiry_charged_tokens is distinct from old.expiry_charged_tokens then
    raise exception 'what an expiry charged is immutable'
      using errcode = 'integrity_constraint_violation';
  end if;
  if not ((old.status = 'held' and new.status in ('expired', 'reconciled'))
       or (old.status = 'expired' and new.status = 'reconciled')) then
    raise exception 'a reservation cannot go from % to %', old.status, new.status
      using errcode = 'integrity_constraint_violation';
  end if;
  return new;
end $$;
alter table model_usage drop column cost_nanos;
alter table model_reservations
  drop column refused_by,
  drop column expiry_charged_nanos,
  drop column booked_nanos,
  drop column price,
  drop column provider_kind;
drop table model_reservation_holds;
drop table spend_budget_windows;
drop function spend_window_start;
drop table spend_budgets;
alter table run_budgets drop column used_nanos, drop column held_nanos;
drop table model_price_fallbacks;
drop table model_prices;
