/**
 * A resource's attributes as the provider writes them, checked against its schema and kept by
 * the schema's names (SCIM names are case-insensitive): what is stored and served back.
 */
import { invalidValue, ScimError } from './scim-error.js';
import {
  attributeOf,
  subAttributeOf,
  type AttributeDef,
  type ResourceSchema,
} from './scim-schemas.js';

export type Attributes = Record<string, unknown>;

/** Names every resource carries outside its attributes; the provider's copies are ignored. */
const envelope = new Set(['schemas', 'id', 'meta']);

const maxText = 2_000;
const maxValues = 10_000;
/** The names the store indexes and looks resources up by: short enough for any index entry. */
const maxIndexed = 256;
const indexed = new Set(['userName', 'displayName']);

/**
 * The value of one attribute as given, checked and in the schema's names; undefined when the
 * value is null or empty (an unassigned attribute, RFC 7643 §2.5).
 */
export function attributeValue(def: AttributeDef, value: unknown, path: string): unknown {
  if (value === null || value === undefined) return undefined;
  if (def.multiValued) {
    const values = Array.isArray(value) ? value : [value];
    if (values.length > maxValues) throw invalidValue(`${path}: more than ${maxValues} values`);
    const kept = values
      .map((v, i) => singleValue(def, v, `${path}[${i}]`))
      .filter((v) => v !== undefined);
    return kept.length > 0 ? kept : undefined;
  }
  if (Array.isArray(value)) throw invalidValue(`${path}: a single value is expected`);
  return singleValue(def, value, path);
}

function singleValue(def: AttributeDef, value: unknown, path: string): unknown {
  if (value === null || value === undefined) return undefined;
  switch (def.type) {
    case 'boolean':
      if (typeof value === 'boolean') return value;
      // Some providers (Entra ID among them) send booleans as "True" and "False".
      if (typeof value === 'string' && /^(true|false)$/i.test(value)) {
        return value.toLowerCase() === 'true';
      }
      throw invalidValue(`${path}: a boolean is expected`);
    case 'string':
    case 'reference':
      if (typeof value !== 'string') throw invalidValue(`${path}: a string is expected`);
      if (value.length > maxText) throw invalidValue(`${path}: longer than ${maxText}`);
      if (indexed.has(path) && value.length > maxIndexed) {
        throw invalidValue(`${path}: longer than ${maxIndexed}`);
      }
      return value.replaceAll('\u0000', '');
    case 'complex':
      return complexValue(def, value, path);
  }
}

function complexValue(def: AttributeDef, value: unknown, path: string): Attributes | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalidValue(`${path}: an object is expected`);
  }
  const kept: Attributes = {};
  for (const [name, given] of Object.entries(value)) {
    const sub = subAttributeOf(def, name);
    if (!sub || sub.mutability === 'readOnly') continue;
    const checked = singleValue(sub, given, `${path}.${sub.name}`);
    if (checked !== undefined) kept[sub.name] = checked;
  }
  return Object.keys(kept).length > 0 ? kept : undefined;
}

/**
 * A whole resource as POST or PUT gives it: its writable attributes, checked; unknown
 * attributes (another schema's extension) and read-only ones are left out, as RFC 7644 §3.3
 * allows. Required attributes must be present.
 */
export function resourceAttributes(resource: ResourceSchema, body: unknown): Attributes {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ScimError(400, 'the body must be a JSON object', 'invalidSyntax');
  }
  const kept: Attributes = {};
  for (const [name, given] of Object.entries(body)) {
    if (envelope.has(name.toLowerCase())) continue;
    const def = attributeOf(resource, name);
    if (!def || def.mutability === 'readOnly') continue;
    const value = attributeValue(def, given, def.name);
    if (value !== undefined) kept[def.name] = value;
  }
  requireAttributes(resource, kept);
  return kept;
}

export function requireAttributes(resource: ResourceSchema, attributes: Attributes): void {
  for (const def of resource.attributes) {
    if (!def.required) continue;
    const value = attributes[def.name];
    if (typeof value !== 'string' || value.trim() === '') {
      throw invalidValue(`${def.name} is required`);
    }
  }
}

/**
 * Immutable attributes keep their values through a replacement (RFC 7643 §7): a PUT may repeat
 * them, never change them.
 */
export function keepImmutable(
  resource: ResourceSchema,
  before: Attributes,
  after: Attributes,
): void {
  for (const def of resource.attributes) {
    if (def.mutability !== 'immutable') continue;
    const was = before[def.name];
    const now = after[def.name];
    if (was !== undefined && now !== undefined && JSON.stringify(was) !== JSON.stringify(now)) {
      throw new ScimError(400, `${def.name} is immutable`, 'mutability');
    }
  }
}

/** Which attributes an answer carries: `attributes` names those, `excludedAttributes` removes. */
export interface Projection {
  attributes?: string[] | undefined;
  excludedAttributes?: string[] | undefined;
}

/** The list of a query parameter: comma-separated attribute names, URN-prefixed or not. */
export function attributeList(value: string | undefined, resources: readonly ResourceSchema[]) {
  if (value === undefined || value.trim() === '') return undefined;
  return value.split(',').map((name) => {
    const trimmed = name.trim();
    const schema = resources.find((r) =>
      trimmed.toLowerCase().startsWith(`${r.id.toLowerCase()}:`),
    );
    return schema ? trimmed.slice(schema.id.length + 1) : trimmed;
  });
}

/** Always returned, whatever the projection asks (RFC 7643 §7 `returned: always`). */
const alwaysReturned = new Set(['id', 'schemas']);

/** An answer's resource cut down to what the projection asks for. */
export function project(full: Attributes, projection: Projection): Attributes {
  const { attributes, excludedAttributes } = projection;
  if (attributes) {
    const out: Attributes = {};
    for (const [name, value] of Object.entries(full)) {
      if (alwaysReturned.has(name)) out[name] = value;
    }
    for (const path of attributes) copyPath(full, out, path);
    return out;
  }
  if (excludedAttributes) {
    return excludedAttributes.reduce((out, path) => removePath(out, path), full);
  }
  return full;
}

function keyOf(object: Attributes, name: string): string | undefined {
  const wanted = name.toLowerCase();
  return Object.keys(object).find((key) => key.toLowerCase() === wanted);
}

function copyPath(from: Attributes, to: Attributes, path: string): void {
  const [head = '', sub] = path.split('.', 2);
  const key = keyOf(from, head);
  if (key === undefined) return;
  const value = from[key];
  if (sub === undefined || typeof value !== 'object' || value === null) {
    to[key] = value;
    return;
  }
  if (Array.isArray(value)) {
    to[key] = value.map((item: unknown) => pick(item, sub)).filter((item) => item !== undefined);
    return;
  }
  const picked = pick(value, sub);
  if (picked !== undefined) to[key] = { ...(to[key] as Attributes | undefined), ...picked };
}

function pick(item: unknown, name: string): Attributes | undefined {
  if (typeof item !== 'object' || item === null) return undefined;
  const key = keyOf(item as Attributes, name);
  return key === undefined ? undefined : { [key]: (item as Attributes)[key] };
}

/** A copy of an object without one of its keys. */
export function withoutKey(object: Attributes, key: string): Attributes {
  return Object.fromEntries(Object.entries(object).filter(([k]) => k !== key));
}

function removePath(object: Attributes, path: string): Attributes {
  const [head = '', sub] = path.split('.', 2);
  const key = keyOf(object, head);
  if (key === undefined || alwaysReturned.has(key)) return object;
  if (sub === undefined) return withoutKey(object, key);
  const without = (item: unknown) => {
    if (typeof item !== 'object' || item === null) return item;
    const subKey = keyOf(item as Attributes, sub);
    return subKey === undefined ? item : withoutKey(item as Attributes, subKey);
  };
  const value = object[key];
  return { ...object, [key]: Array.isArray(value) ? value.map(without) : without(value) };
}
