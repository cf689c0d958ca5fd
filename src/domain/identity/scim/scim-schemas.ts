/**
 * What the gate's SCIM service provider serves (RFC 7643): a User (a member of the workspace)
 * and a Group (one of the identity provider's groups), by the attributes the gate keeps. The
 * discovery endpoints publish exactly these definitions, and every read and write follows them.
 */

export type AttributeType = 'string' | 'boolean' | 'complex' | 'reference';
export type Mutability = 'readOnly' | 'readWrite' | 'immutable';

export interface AttributeDef {
  name: string;
  type: AttributeType;
  multiValued: boolean;
  description: string;
  required: boolean;
  caseExact: boolean;
  mutability: Mutability;
  returned: 'always' | 'default';
  uniqueness: 'none' | 'server';
  subAttributes?: AttributeDef[];
  canonicalValues?: string[];
  referenceTypes?: string[];
}

export const userSchema = 'urn:ietf:params:scim:schemas:core:2.0:User';
const groupSchema = 'urn:ietf:params:scim:schemas:core:2.0:Group';
export const listSchema = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';

const attribute = (
  name: string,
  description: string,
  options: Partial<Omit<AttributeDef, 'name' | 'description'>> = {},
): AttributeDef => ({
  name,
  type: 'string',
  multiValued: false,
  description,
  required: false,
  caseExact: false,
  mutability: 'readWrite',
  returned: 'default',
  uniqueness: 'none',
  ...options,
});

/** `externalId`: the provider's own identifier, kept as given (RFC 7643 §3.1). */
const externalIdAttribute = attribute('externalId', "The identity provider's identifier", {
  caseExact: true,
});

export interface ResourceSchema {
  id: string;
  name: 'User' | 'Group';
  endpoint: '/Users' | '/Groups';
  description: string;
  attributes: AttributeDef[];
}

export const userResource: ResourceSchema = {
  id: userSchema,
  name: 'User',
  endpoint: '/Users',
  description: 'A member of the workspace',
  attributes: [
    attribute('userName', 'Unique within the workspace; matched to the sign-in email', {
      required: true,
      uniqueness: 'server',
    }),
    attribute('name', "The person's name", {
      type: 'complex',
      subAttributes: [
        attribute('formatted', 'The full name'),
        attribute('familyName', 'The family name'),
        attribute('givenName', 'The given name'),
      ],
    }),
    attribute('displayName', 'The name shown to approvers'),
    attribute('emails', 'Email addresses; one may match the sign-in email', {
      type: 'complex',
      multiValued: true,
      subAttributes: [
        attribute('value', 'The address'),
        attribute('type', 'work, home or other', { canonicalValues: ['work', 'home', 'other'] }),
        attribute('primary', 'The preferred address', { type: 'boolean' }),
      ],
    }),
    attribute('active', 'false ends the member’s access at once', { type: 'boolean' }),
    attribute('groups', 'The groups the member is in (set through the Groups)', {
      type: 'complex',
      multiValued: true,
      mutability: 'readOnly',
      subAttributes: [
        attribute('value', "The group's id", { mutability: 'readOnly' }),
        attribute('$ref', "The group's URI", {
          type: 'reference',
          referenceTypes: ['Group'],
          mutability: 'readOnly',
        }),
        attribute('display', "The group's name", { mutability: 'readOnly' }),
      ],
    }),
  ],
};

export const groupResource: ResourceSchema = {
  id: groupSchema,
  name: 'Group',
  endpoint: '/Groups',
  description: "One of the identity provider's groups; the workspace's mapping gives it a role",
  attributes: [
    attribute('displayName', "The group's name, as the workspace's identity mapping names it", {
      required: true,
      uniqueness: 'server',
    }),
    attribute('members', "The group's members (Users)", {
      type: 'complex',
      multiValued: true,
      subAttributes: [
        attribute('value', "The member's id", { mutability: 'immutable', caseExact: true }),
        attribute('$ref', "The member's URI", {
          type: 'reference',
          referenceTypes: ['User'],
          mutability: 'immutable',
        }),
        attribute('type', 'User', { mutability: 'immutable', canonicalValues: ['User'] }),
      ],
    }),
  ],
};

export const resourceSchemas = [userResource, groupResource] as const;

/** The definition of a top-level attribute (or `externalId`), by any case of its name. */
export function attributeOf(resource: ResourceSchema, name: string): AttributeDef | undefined {
  const wanted = name.toLowerCase();
  if (wanted === 'externalid') return externalIdAttribute;
  return resource.attributes.find((a) => a.name.toLowerCase() === wanted);
}

export function subAttributeOf(parent: AttributeDef, name: string): AttributeDef | undefined {
  const wanted = name.toLowerCase();
  return parent.subAttributes?.find((a) => a.name.toLowerCase() === wanted);
}

/** `/Schemas/{id}`: a resource's schema in RFC 7643 §7 form. */
export function schemaDocument(resource: ResourceSchema, location: string) {
  return {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:Schema'],
    id: resource.id,
    name: resource.name,
    description: resource.description,
    attributes: resource.attributes,
    meta: { resourceType: 'Schema', location: `${location}/Schemas/${resource.id}` },
  };
}

/** `/ResourceTypes/{name}` (RFC 7643 §6). */
export function resourceTypeDocument(resource: ResourceSchema, location: string) {
  return {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:ResourceType'],
    id: resource.name,
    name: resource.name,
    endpoint: resource.endpoint,
    description: resource.description,
    schema: resource.id,
    meta: { resourceType: 'ResourceType', location: `${location}/ResourceTypes/${resource.name}` },
  };
}

/** The most resources one list answers; `count` asks for fewer. */
export const maxResults = 200;

/** `/ServiceProviderConfig` (RFC 7643 §5): what this provider supports. */
export function serviceProviderConfig(location: string, documentation: string) {
  return {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig'],
    documentationUri: documentation,
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults },
    changePassword: { supported: false },
    sort: { supported: false },
    etag: { supported: false },
    authenticationSchemes: [
      {
        type: 'oauthbearertoken',
        name: 'Bearer token',
        description: "The workspace's SCIM token, minted by the gate's operator",
        primary: true,
      },
    ],
    meta: { resourceType: 'ServiceProviderConfig', location: `${location}/ServiceProviderConfig` },
  };
}
