-- Up Migration

-- The value of the ID token's claim that a provisioned User's externalId names the person by
-- (`GATE_OIDC_EXTERNAL_ID_CLAIM`, the subject by default): Entra ID's `sub` is per application
-- and its SCIM sends the object id, which the token carries as `oid`. Null for a person who
-- signed in before it was kept: their subject stands for it.
alter table people add column external_id text;

-- An email is now kept only when the provider said it verified it (`email_verified: true`); one
-- kept before may have come from a token that said nothing, and a User provisioned later would be
-- matched to it. Each is forgotten, and kept again at the person's next sign-in if verified.
update people set email = null;

-- Down Migration

alter table people drop column external_id;
