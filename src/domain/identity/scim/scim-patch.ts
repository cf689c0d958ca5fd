/**
 * PATCH (RFC 7644 §3.5.2): add, replace and remove, each with or without a path, a path being
 * an attribute, a sub-attribute, or a value path (`members[value eq "…"]`, with a
 * sub-attribute after it). Pure: the operations applied to a resource's attributes give its new
 * attributes, or a SCIM error naming what was wrong.
 */
import {
  attributeValue,
  requireAttributes,
  withoutKey,
  type Attributes,
} from './scim-attributes.js';
import { invalidSyntax, ScimError } from './scim-error.js';
import { matches, parseAttrPath, parseFilter, type Filter } from './scim-filter.js';
import {
  attributeOf,
  subAttributeOf,
  type AttributeDef,
  type ResourceSchema,
} from './scim-schemas.js';

export interface PatchOperation {
  op: 'add' | 'replace' | 'remove';
  path?: string | undefined;
  value?: unknown;
}

const maxOperations = 1_000;
const invalidPath = (detail: string) => new ScimError(400, detail, 'invalidPath');
const noTarget = (detail: string) => new ScimError(400, detail, 'noTarget');

/** The operations of a PatchOp body, checked (op names in any case, as some providers send). */
export function patchOperations(body: unknown): PatchOperation[] {
  const operations = field(body, 'Operations');
  if (!Array.isArray(operations) || operations.length === 0) {
    throw invalidSyntax('Operations must be a non-empty array');
  }
  if (operations.length > maxOperations)
    throw invalidSyntax(`more than ${maxOperations} operations`);
  return operations.map((operation: unknown, i) => {
    const op = field(operation, 'op');
    const name = typeof op === 'string' ? op.toLowerCase() : undefined;
    if (name !== 'add' && name !== 'replace' && name !== 'remove') {
      throw invalidSyntax(`Operations[${i}].op must be add, replace or remove`);
    }
    const path = field(operation, 'path');
    if (path !== undefined && typeof path !== 'string') {
      throw invalidSyntax(`Operations[${i}].path must be a string`);
    }
    return { op: name, path: path === '' ? undefined : path, value: field(operation, 'value') };
  });
}

function field(object: unknown, name: string): unknown {
  if (typeof object !== 'object' || object === null || Array.isArray(object)) return undefined;
  const key = Object.keys(object).find((k) => k.toLowerCase() === name.toLowerCase());
  return key === undefined ? undefined : (object as Record<string, unknown>)[key];
}

/** A parsed path: the attribute's definition, a value filter, a sub-attribute. */
interface Target {
  def: AttributeDef;
  filter?: Filter | undefined;
  sub?: AttributeDef | undefined;
}

function target(resource: ResourceSchema, path: string): Target {
  const bracket = path.indexOf('[');
  let attributePart = path;
  let filter: Filter | undefined;
  let subName: string | undefined;
  if (bracket >= 0) {
    const close = path.lastIndexOf(']');
    if (close < bracket) throw invalidPath(`"${path}" has an unclosed "["`);
    attributePart = path.slice(0, bracket);
    filter = parseFilter(path.slice(bracket + 1, close), [resource.id]);
    const after = path.slice(close + 1);
    if (after !== '') {
      if (!after.startsWith('.')) throw invalidPath(`"${path}" is not a path`);
      subName = after.slice(1);
    }
  }
  let parsed;
  try {
    parsed = parseAttrPath(attributePart, [resource.id]);
  } catch {
    throw invalidPath(`"${path}" is not a path`);
  }
  if (parsed.sub !== undefined) {
    if (subName !== undefined) throw invalidPath(`"${path}" is not a path`);
    subName = parsed.sub;
  }
  const def = attributeOf(resource, parsed.attribute);
  if (!def) throw invalidPath(`${parsed.attribute} is no attribute of a ${resource.name}`);
  if (def.mutability === 'readOnly') {
    throw new ScimError(400, `${def.name} is read-only`, 'mutability');
  }
  if (filter && !def.multiValued) throw invalidPath(`${def.name} is not multi-valued`);
  let sub: AttributeDef | undefined;
  if (subName !== undefined) {
    sub = subAttributeOf(def, subName);
    if (!sub) throw invalidPath(`${subName} is no sub-attribute of ${def.name}`);
  }
  return { def, filter, sub };
}

/** A value's canonical key: two values are the same when their keys are. */
const key = (value: unknown) => JSON.stringify(value);

/** The key of a value given by its `value` (a member's UUID, an email): compared without case. */
function valueKey(item: unknown): string {
  const value = field(item, 'value') ?? item;
  return typeof value === 'string' ? `s:${value.toLowerCase()}` : key(value);
}

/** The operations applied in order; the result still holds every required attribute. */
export function applyPatch(
  resource: ResourceSchema,
  attributes: Attributes,
  operations: readonly PatchOperation[],
): Attributes {
  let current: Attributes = structuredClone(attributes);
  for (const operation of operations) {
    current = applyOne(resource, current, operation);
  }
  requireAttributes(resource, current);
  return current;
}

function applyOne(resource: ResourceSchema, current: Attributes, operation: PatchOperation) {
  if (operation.path === undefined) {
    if (operation.op === 'remove') throw noTarget('remove needs a path');
    const value = operation.value;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw invalidSyntax(`${operation.op} without a path needs an object of attributes`);
    }
    let next = current;
    for (const [path, given] of Object.entries(value)) {
      if (['schemas', 'id', 'meta'].includes(path.toLowerCase())) continue;
      next = applyAt(next, target(resource, path), operation.op, given);
    }
    return next;
  }
  return applyAt(current, target(resource, operation.path), operation.op, operation.value);
}

function applyAt(current: Attributes, at: Target, op: PatchOperation['op'], given: unknown) {
  const { def } = at;
  const next = { ...current };
  const existing = next[def.name];
  if (op !== 'remove' && (given === undefined || given === null)) {
    throw invalidSyntax(`${op} ${def.name} needs a value`);
  }
  // No value filter: the attribute itself, or one sub-attribute of it.
  if (!at.filter) {
    if (at.sub) {
      const sub = at.sub;
      const value =
        op === 'remove' ? undefined : attributeValue(sub, given, `${def.name}.${sub.name}`);
      const items = def.multiValued ? asItems(existing) : [existing ?? {}];
      const changed = items.map((item) => withSub(item, sub.name, value));
      return setOrDrop(next, def, def.multiValued ? changed : changed[0]);
    }
    if (op === 'remove') {
      if (def.required) throw new ScimError(400, `${def.name} is required`, 'mutability');
      if (def.multiValued && given !== undefined && given !== null) {
        // Entra ID removes group members this way: the values to take out, in the body (one
        // value alone is one to take out, never the whole attribute).
        const gone = new Set(asItems(given).map(valueKey));
        return setOrDrop(
          next,
          def,
          asItems(existing).filter((item) => !gone.has(valueKey(item))),
        );
      }
      return withoutKey(next, def.name);
    }
    const value = attributeValue(def, given, def.name);
    if (op === 'add' && def.multiValued) {
      // One canonical key per value, in a set: linear in the values however many are sent.
      const seen = new Set(asItems(existing).map(key));
      const added = asItems(value).filter((item) => !seen.has(key(item)) && !!seen.add(key(item)));
      return setOrDrop(next, def, [...asItems(existing), ...added]);
    }
    if (op === 'add' && def.type === 'complex' && isObject(existing) && isObject(value)) {
      return setOrDrop(next, def, { ...existing, ...value });
    }
    return setOrDrop(next, def, value);
  }
  // A value filter: the values of a multi-valued attribute it selects.
  const filter = at.filter;
  const items = asItems(existing);
  const selected = items.map((item) => matches(filter, item));
  if (op === 'remove') {
    if (!selected.some(Boolean)) return next;
    const sub = at.sub;
    const kept = sub
      ? items.map((item, i) => (selected[i] ? withSub(item, sub.name, undefined) : item))
      : items.filter((_, i) => !selected[i]);
    return setOrDrop(next, def, kept);
  }
  if (at.sub) {
    const sub = at.sub;
    const value = attributeValue(sub, given, `${def.name}.${sub.name}`);
    if (!selected.some(Boolean)) {
      // Entra ID sets `emails[type eq "work"].value` on a user with no work email yet.
      const seed = equalityItem(filter);
      if (!seed) throw noTarget(`no value of ${def.name} matches the filter`);
      return setOrDrop(next, def, [...items, withSub(seed, sub.name, value)]);
    }
    return setOrDrop(
      next,
      def,
      items.map((item, i) => (selected[i] ? withSub(item, sub.name, value) : item)),
    );
  }
  if (!selected.some(Boolean)) throw noTarget(`no value of ${def.name} matches the filter`);
  const [replacement] = asItems(
    attributeValue(def, Array.isArray(given) ? given : [given], def.name),
  );
  return setOrDrop(
    next,
    def,
    items.map((item, i) =>
      selected[i] ? { ...(item as Attributes), ...(replacement as Attributes) } : item,
    ),
  );
}

function isObject(value: unknown): value is Attributes {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function asItems(value: unknown): unknown[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

function withSub(item: unknown, name: string, value: unknown): Attributes {
  const copy: Attributes = isObject(item) ? { ...item } : {};
  return value === undefined ? withoutKey(copy, name) : { ...copy, [name]: value };
}

function setOrDrop(next: Attributes, def: AttributeDef, value: unknown): Attributes {
  const empty =
    value === undefined ||
    (Array.isArray(value) && value.length === 0) ||
    (isObject(value) && Object.keys(value).length === 0);
  const cleaned = Array.isArray(value)
    ? value.filter((item) => !(isObject(item) && Object.keys(item).length === 0))
    : value;
  if (empty || (Array.isArray(cleaned) && cleaned.length === 0)) return withoutKey(next, def.name);
  return { ...next, [def.name]: cleaned };
}

/** The value a filter of `sub eq "x"` (and such, joined by and) describes, to add when absent. */
function equalityItem(filter: Filter): Attributes | undefined {
  if (filter.kind === 'compare' && filter.op === 'eq' && filter.path.sub === undefined) {
    return { [filter.path.attribute]: filter.value };
  }
  if (filter.kind === 'and') {
    const left = equalityItem(filter.left);
    const right = equalityItem(filter.right);
    return left && right ? { ...left, ...right } : undefined;
  }
  return undefined;
}
