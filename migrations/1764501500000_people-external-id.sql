-- Up Migration

-- The value of the ID token's claim that a provisioned User's externalId names the person by
-- (`GATE_OIDC_EXTERNAL_ID_CLAIM`, the subject when unset): Entra ID's `sub` is per application
-- and its SCIM sends the object id, which the token carries as `oid`. Null for a person whose
-- token lacked the named claim. Until now it was the subject.
alter table people add column external_id text;
update people set external_id = subject;

-- Down Migration

alter table people drop column external_id;
