-- Up Migration

-- An OAuth refresh takes a short lease on its connection instead of holding its row lock through
-- the exchange: one holder at a time, the others wait on the lease without a database connection.
alter table connections
  add column refresh_lease uuid,
  add column refresh_lease_until timestamptz;

-- Down Migration
alter table connections drop column refresh_lease, drop column refresh_lease_until;
