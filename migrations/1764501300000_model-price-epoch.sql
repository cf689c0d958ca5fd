-- Up Migration

-- A count of the changes to the price table and the providers' fallback prices, raised in the
-- transaction of each change: a process keeps the prices it read beside the count it read them
-- at, and reads them again when a model request's first statement finds the count moved
-- (src/application/model-access/book-model-request.ts).
create table model_price_epoch (
  one boolean primary key default true check (one),
  epoch bigint not null default 0
);
insert into model_price_epoch default values;

create function model_price_epoch_raise() returns trigger language plpgsql as $$
begin
  update model_price_epoch set epoch = epoch + 1;
  return null;
end;
$$;

create trigger model_prices_changed after insert or update or delete or truncate on model_prices
  for each statement execute function model_price_epoch_raise();
create trigger model_price_fallbacks_changed
  after insert or update or delete or truncate on model_price_fallbacks
  for each statement execute function model_price_epoch_raise();

-- Down Migration
drop trigger model_price_fallbacks_changed on model_price_fallbacks;
drop trigger model_prices_changed on model_prices;
drop function model_price_epoch_raise();
drop table model_price_epoch;
