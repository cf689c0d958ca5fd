/**
 * A provisioned resource as the SCIM service provider serves it: its schema, id, attributes
 * and meta (RFC 7643 §3.1), a User with the groups it is in; and lists of them (RFC 7644 §3.4.2).
 */
import { project, type Attributes, type Projection } from './scim-attributes.js';
import { invalidValue } from './scim-error.js';
import { matches, type Filter } from './scim-filter.js';
import {
  groupResource,
  listSchema,
  maxResults,
  userResource,
  type ResourceSchema,
} from './scim-schemas.js';

interface StoredResource {
  id: string;
  kind: 'User' | 'Group';
  attributes: Attributes;
  version: number;
  created_at: Date;
  updated_at: Date;
}

export const schemaOf = (kind: StoredResource['kind']): ResourceSchema =>
  kind === 'User' ? userResource : groupResource;

/** The whole resource; `base` is the service provider's URL (…/scim/v2). */
export function renderResource(
  row: StoredResource,
  base: string,
  groups: readonly { id: string; display_name: string }[] = [],
): Attributes {
  const resource = schemaOf(row.kind);
  const { externalId, ...attributes } = row.attributes;
  return {
    schemas: [resource.id],
    id: row.id,
    ...(externalId !== undefined && { externalId }),
    ...attributes,
    ...(row.kind === 'User' &&
      groups.length > 0 && {
        groups: groups.map((g) => ({
          value: g.id,
          $ref: `${base}/Groups/${g.id}`,
          display: g.display_name,
        })),
      }),
    meta: {
      resourceType: row.kind,
      created: row.created_at.toISOString(),
      lastModified: row.updated_at.toISOString(),
      location: `${base}${resource.endpoint}/${row.id}`,
      version: `W/"${row.version}"`,
    },
  };
}

/** Where a list starts and how many it holds (RFC 7644 §3.4.2.4), as the query gave them. */
interface Page {
  startIndex?: number | undefined;
  count?: number | undefined;
}

function wholeNumber(value: number | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isFinite(value)) throw invalidValue(`${name} must be a number`);
  return Math.trunc(value);
}

/**
 * A ListResponse of the resources the filter selects, one page of them: a `startIndex` below 1
 * is 1, a negative `count` is 0, and no page holds more than `maxResults`.
 */
export function listResponse(
  resources: readonly Attributes[],
  query: { filter?: Filter | undefined; page: Page; projection: Projection },
) {
  const { filter, page, projection } = query;
  const selected = filter ? resources.filter((r) => matches(filter, r)) : [...resources];
  const start = Math.max(1, wholeNumber(page.startIndex, 'startIndex') ?? 1);
  const count = Math.min(maxResults, Math.max(0, wholeNumber(page.count, 'count') ?? maxResults));
  const shown = selected.slice(start - 1, start - 1 + count).map((r) => project(r, projection));
  return {
    schemas: [listSchema],
    totalResults: selected.length,
    startIndex: start,
    itemsPerPage: shown.length,
    Resources: shown,
  };
}
