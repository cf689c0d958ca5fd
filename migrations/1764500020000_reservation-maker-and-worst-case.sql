-- Up Migration

-- Who made a reservation: the runner (POST …/model-requests, settled by its own usage report)
-- or the gate's model endpoint (settled by the gate from what it relayed). Each is settled only
-- by its maker, so a runner cannot settle the endpoint's booking with figures of its own.
alter table model_reservations add column made_by text not null default 'runner'
  check (made_by in ('runner', 'proxy'));
-- What the sweep charged when it expired the hold: the spend it could not learn, counted at the
-- booking (null for holds expired before charging existed, which released the hold uncharged).
alter table model_reservations add column expiry_charged_tokens bigint
  check (expiry_charged_tokens is null
         or (expiry_charged_tokens = booked_tokens and expired_at is not null));

-- The endpoint's own request ids are 'proxy-' and a UUID; the forward-only trigger refuses an
-- update that keeps the status, so it is set aside for this one backfill.
alter table model_reservations disable trigger model_reservations_forward_only;
update model_reservations set made_by = 'proxy'
  where request_id ~ '^proxy-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';
alter table model_reservations enable trigger model_reservations_forward_only;

-- The maker and the expiry's charge are part of what never changes once written.
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

-- Image and document blocks whose source is a URL make the provider fetch that address: an exit
-- to the network for whatever the model writes. A provider allows them only when asked to.
alter table model_providers add column allow_url_sources boolean not null default false;

-- Down Migration
alter table model_providers drop column allow_url_sources;
create or replace function model_reservation_transition() returns trigger language plpgsql as $$
begin
  if (new.id, new.session_id, new.request_id, new.run_id, new.request_digest, new.model,
      new.max_output_tokens, new.input_bound_tokens, new.booked_tokens, new.created_at)
     is distinct from
     (old.id, old.session_id, old.request_id, old.run_id, old.request_digest, old.model,
      old.max_output_tokens, old.input_bound_tokens, old.booked_tokens, old.created_at)
  then
    raise exception 'a reservation''s booking is immutable'
      using errcode = 'integrity_constraint_violation';
  end if;
  if not ((old.status = 'held' and new.status in ('expired', 'reconciled'))
       or (old.status = 'expired' and new.status = 'reconciled')) then
    raise exception 'a reservation cannot go from % to %', old.status, new.status
      using errcode = 'integrity_constraint_violation';
  end if;
  return new;
end $$;
alter table model_reservations drop column expiry_charged_tokens;
alter table model_reservations drop column made_by;
