import RE2 from 're2';
import { foreignText, pointerToken } from './foreign-text.js';
import { JsonPointerError, parseJsonPointer } from '../policy/json-pointer.js';
import { safeFormats } from './safe-formats.js';
import {
  boundValidationCost,
  longestCompilePath,
  showPointer,
  type ChildKey,
  type CostNode,
} from './schema-cost.js';
import { GateError } from '../errors.js';

/**
 * The guard applied to a tool's input schema before ajv compiles anything. The schema came
 * from an external MCP server, so it is hostile until shown otherwise: a schema that breaks a
 * rule here makes its tool uncallable (fail closed) rather than being partly enforced.
 *
 * The guard's own work is bounded by its limits, not by the input: the walks are iterative
 * and stop at the first limit crossed.
 */

interface SchemaLimits {
  maxBytes: number;
  maxDepth: number;
  maxSubschemas: number;
  maxCompilePath: number;
  maxPatterns: number;
  maxPatternLength: number;
  maxEnumValues: number;
  maxUniqueItems: number;
  maxCostPerValue: number;
  maxCostStates: number;
}

export const DEFAULT_SCHEMA_LIMITS: Readonly<SchemaLimits> = Object.freeze({
  // Bytes of the schema's JSON: far above real tool schemas, small enough to compile quickly.
  maxBytes: 64 * 1024,
  // JSON nesting (one schema level is two: `properties` then the property): ajv compiles recursively.
  maxDepth: 64,
  // ajv compiles a subschema in 100-300 µs cold: 128 keep the worst compile near 25 ms.
  // Published tool schemas use a handful; raise it only with a measurement.
  maxSubschemas: 128,
  // Subschemas on one nesting-and-$ref path: ajv's compiler recurses along it (~400 overflow).
  maxCompilePath: 64,
  // `pattern` values and `patternProperties` keys: each is compiled and run on matching values.
  maxPatterns: 32,
  // Characters per pattern: RE2 memory and compile time grow with the pattern.
  maxPatternLength: 1024,
  // Values per `enum`: each is a comparison for every value the enum applies to.
  maxEnumValues: 1024,
  // `maxItems` needed where `uniqueItems` must compare every pair of non-scalar items (n²/2).
  maxUniqueItems: 256,
  // Units of work one argument value may cost: a subschema is 1, plus 1 per enum value.
  maxCostPerValue: 4096,
  // Sets of subschemas the cost analysis may visit before calling the schema too complex.
  maxCostStates: 4096,
});

export type SchemaDialect = 'draft-07' | '2019-09' | '2020-12';

type SchemaGuardResult =
  | { ok: true; dialect: SchemaDialect; costPerValue: number; scansPerString: number }
  | { ok: false; reason: string };

const dialects: ReadonlyMap<string, SchemaDialect> = new Map([
  ['http://json-schema.org/draft-07/schema', 'draft-07'],
  ['https://json-schema.org/draft-07/schema', 'draft-07'],
  ['https://json-schema.org/draft/2019-09/schema', '2019-09'],
  ['https://json-schema.org/draft/2020-12/schema', '2020-12'],
]);

/**
 * The dialect a schema declares with `$schema`; none means 2020-12, as the MCP specification
 * says. `undefined` for any other dialect: its keywords would be read with the wrong meaning.
 */
export function schemaDialect(schema: unknown): SchemaDialect | undefined {
  if (schema === null || typeof schema !== 'object' || !Object.hasOwn(schema, '$schema')) {
    return '2020-12';
  }
  const declared = (schema as { $schema?: unknown }).$schema;
  if (typeof declared !== 'string') return undefined;
  return dialects.get(declared.endsWith('#') ? declared.slice(0, -1) : declared);
}

class SchemaRefusal extends GateError {
  override name = 'SchemaRefusal';
  readonly code = 'schema_refused';
}

function refuse(reason: string): never {
  throw new SchemaRefusal(reason);
}

const at = showPointer;

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value;
}

/**
 * First pass, over every JSON value: is it plain JSON (no cycles, no shared objects, finite
 * numbers), how deep, how many bytes, and is `$data` anywhere.
 */
function checkJsonShape(document: unknown, limits: SchemaLimits): void {
  let bytes = 0;
  const seen = new Set<object>();
  const pending: { value: unknown; depth: number; pointer: string }[] = [
    { value: document, depth: 0, pointer: '' },
  ];
  const count = (more: number): void => {
    bytes += more;
    if (bytes > limits.maxBytes) refuse(`the schema is larger than ${limits.maxBytes} bytes`);
  };
  const countString = (text: string): void => {
    // A UTF-16 unit is at least one UTF-8 byte: refuse before serialising a huge string.
    if (text.length > limits.maxBytes - bytes) count(text.length);
    count(Buffer.byteLength(JSON.stringify(text)));
  };
  for (let next = pending.pop(); next; next = pending.pop()) {
    const { value, depth, pointer } = next;
    if (depth > limits.maxDepth) refuse(`the schema nests deeper than ${limits.maxDepth} levels`);
    if (value === null) count(4);
    else if (typeof value === 'boolean') count(value ? 4 : 5);
    else if (typeof value === 'number') {
      if (!Number.isFinite(value)) refuse(`${at(pointer)} holds a number that is not finite`);
      count(JSON.stringify(value).length);
    } else if (typeof value === 'string') countString(value);
    else if (typeof value === 'object') {
      if (seen.has(value)) refuse(`${at(pointer)} is an object seen twice: not a JSON tree`);
      seen.add(value);
      if (Array.isArray(value)) {
        count(2 + Math.max(0, value.length - 1));
        value.forEach((item: unknown, index) => {
          pending.push({ value: item, depth: depth + 1, pointer: `${pointer}/${index}` });
        });
      } else {
        const prototype: unknown = Object.getPrototypeOf(value);
        if (prototype !== Object.prototype && prototype !== null) {
          refuse(`${at(pointer)} is not a plain JSON object`);
        }
        const keys = Object.keys(value);
        count(2 + Math.max(0, keys.length - 1) + keys.length);
        for (const key of keys) {
          if (key === '$data') refuse(`${at(pointer)} uses $data, which is never enabled`);
          countString(key);
          pending.push({
            value: (value as Record<string, unknown>)[key],
            depth: depth + 1,
            pointer: `${pointer}/${pointerToken(key)}`,
          });
        }
      }
    } else {
      refuse(`${at(pointer)} holds ${typeof value}, which is not JSON`);
    }
  }
}

/** Keywords whose value is one subschema, and which value it applies to. */
const singleSubschema: ReadonlyMap<string, ChildKey | 'in-place' | 'unapplied'> = new Map<
  string,
  ChildKey | 'in-place' | 'unapplied'
>([
  ['not', 'in-place'],
  ['if', 'in-place'],
  ['then', 'in-place'],
  ['else', 'in-place'],
  ['additionalItems', 'i*'],
  ['contains', 'i*'],
  ['unevaluatedItems', 'i*'],
  ['additionalProperties', 'p*'],
  ['unevaluatedProperties', 'p*'],
  ['propertyNames', 'n'],
  // Annotation only: ajv does not apply it, but a $ref could point at it.
  ['contentSchema', 'unapplied'],
]);

const subschemaLists: ReadonlySet<string> = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);

const subschemaMaps: ReadonlySet<string> = new Set([
  'properties',
  'patternProperties',
  'dependentSchemas',
  'dependencies',
  'definitions',
  '$defs',
]);

/** References resolved at run time, by the dynamic scope: refused rather than analysed. */
const dynamicKeywords = ['$dynamicRef', '$dynamicAnchor', '$recursiveRef', '$recursiveAnchor'];

/** Keywords whose check reads a whole string: RE2 or a format check, or ajv counting code points. */
const stringScanKeywords = ['pattern', 'format', 'minLength', 'maxLength', 'enum', 'const'];

const anchorName = /^[A-Za-z_][-A-Za-z0-9._]*$/;
const scalarTypes: ReadonlySet<unknown> = new Set([
  'string',
  'number',
  'integer',
  'boolean',
  'null',
]);

type Edge = ChildKey | 'in-place' | 'unapplied';

interface Walk {
  dialect: SchemaDialect;
  nodes: CostNode[];
  byPointer: Map<string, number>;
  anchors: Map<string, number>;
  refs: { from: CostNode; ref: string }[];
  patterns: number;
}

function checkPattern(pattern: unknown, where: string, walk: Walk, limits: SchemaLimits): void {
  if (typeof pattern !== 'string') refuse(`${where} must be a string`);
  walk.patterns += 1;
  if (walk.patterns > limits.maxPatterns) {
    refuse(`the schema has more than ${limits.maxPatterns} patterns`);
  }
  if (pattern.length > limits.maxPatternLength) {
    refuse(`${where} is longer than ${limits.maxPatternLength} characters`);
  }
  try {
    // Same flag ajv will use; RE2 refuses what it cannot run in linear time.
    new RE2(pattern, 'u');
  } catch (error) {
    refuse(
      `${where} is not a linear-time (RE2) regular expression: ${foreignText((error as Error).message)}`,
    );
  }
}

/** Items whose type ajv can compare through a hash, in linear time. */
function hasScalarItems(items: unknown): boolean {
  if (items === null || typeof items !== 'object' || Array.isArray(items)) return false;
  const type = (items as { type?: unknown }).type;
  const types: unknown[] = Array.isArray(type) ? type : [type];
  return types.length > 0 && types.every((t) => scalarTypes.has(t));
}

/** Checks one subschema's own keywords; returns the subschemas it holds, for the walk. */
function checkSubschema(
  schema: Record<string, unknown>,
  id: number,
  walk: Walk,
  limits: SchemaLimits,
): { value: unknown; pointer: string; edge: Edge }[] {
  const node = walk.nodes[id];
  if (!node) throw new RangeError(`no subschema ${id}`);
  const pointer = node.pointer;
  const held: { value: unknown; pointer: string; edge: Edge }[] = [];
  const inside = (keyword: string): string => `${pointer}/${pointerToken(keyword)}`;

  for (const keyword of dynamicKeywords) {
    if (Object.hasOwn(schema, keyword)) refuse(`${at(pointer)} uses ${keyword}, which is refused`);
  }
  if (pointer !== '' && Object.hasOwn(schema, '$schema')) {
    refuse(`${at(pointer)} declares $schema: a subschema may not switch dialect`);
  }
  if (Object.hasOwn(schema, '$ref')) {
    const ref = schema.$ref;
    if (typeof ref !== 'string') refuse(`${at(inside('$ref'))} must be a string`);
    if (!ref.startsWith('#'))
      refuse(`${at(inside('$ref'))} is "${foreignText(ref)}": only local references (#...)`);
    walk.refs.push({ from: node, ref });
  }
  if (Object.hasOwn(schema, '$id')) {
    const $id = schema.$id;
    if (typeof $id !== 'string') refuse(`${at(inside('$id'))} must be a string`);
    if (pointer !== '') {
      // A nested $id that is a URI moves the base that "#..." resolves against; only a
      // plain-name anchor keeps every reference relative to this document's root.
      if (!$id.startsWith('#') || !anchorName.test($id.slice(1))) {
        refuse(
          `${at(inside('$id'))} is "${foreignText($id)}": a nested $id may only be a "#name" anchor`,
        );
      }
      // From 2019-09 on, a fragment in $id is invalid: anchors are written with $anchor.
      if (walk.dialect !== 'draft-07') refuse(`${at(inside('$id'))} is an anchor: use $anchor`);
      addAnchor($id.slice(1), id, pointer, walk);
    }
  }
  if (Object.hasOwn(schema, '$anchor')) {
    const anchor = schema.$anchor;
    if (typeof anchor !== 'string' || !anchorName.test(anchor)) {
      refuse(`${at(inside('$anchor'))} must be a plain name`);
    }
    addAnchor(anchor, id, pointer, walk);
  }
  if (Object.hasOwn(schema, 'pattern')) {
    checkPattern(schema.pattern, at(inside('pattern')), walk, limits);
  }
  if (Object.hasOwn(schema, 'format')) {
    const format = schema.format;
    if (typeof format !== 'string' || !safeFormats.has(format)) {
      refuse(
        `${at(inside('format'))} is ${typeof format === 'string' ? `"${foreignText(format)}"` : describe(format)}; ` +
          `allowed: ${[...safeFormats.keys()].join(', ')}`,
      );
    }
  }
  if (Object.hasOwn(schema, 'enum')) {
    const values = schema.enum;
    if (!Array.isArray(values)) refuse(`${at(inside('enum'))} must be an array`);
    if (values.length > limits.maxEnumValues) {
      refuse(`${at(inside('enum'))} has more than ${limits.maxEnumValues} values`);
    }
    node.weight += values.length;
  }
  if (schema.uniqueItems === true && !hasScalarItems(schema.items)) {
    const maxItems = schema.maxItems;
    if (typeof maxItems !== 'number' || maxItems > limits.maxUniqueItems) {
      refuse(
        `${at(pointer)} has uniqueItems over items that are not scalar-typed: ` +
          `it needs maxItems of at most ${limits.maxUniqueItems}`,
      );
    }
    // Every item is compared with up to maxItems others: that much work per value.
    node.weight += Math.max(0, Math.ceil(maxItems));
  }

  node.scans = stringScanKeywords.filter((keyword) => Object.hasOwn(schema, keyword)).length;

  for (const [keyword, value] of Object.entries(schema)) {
    const single = singleSubschema.get(keyword);
    if (single) {
      held.push({ value, pointer: inside(keyword), edge: single });
    } else if (keyword === 'items') {
      // An array of items is an older dialect's tuple: each position its own subschema.
      if (Array.isArray(value)) {
        if (walk.dialect === '2020-12')
          refuse(`${at(inside(keyword))} is a tuple: use prefixItems`);
        value.forEach((item: unknown, index) => {
          held.push({
            value: item,
            pointer: `${inside(keyword)}/${index}`,
            edge: `i:${index}`,
          });
        });
      } else {
        held.push({ value, pointer: inside(keyword), edge: 'i*' });
      }
    } else if (subschemaLists.has(keyword)) {
      if (!Array.isArray(value)) refuse(`${at(inside(keyword))} must be an array of schemas`);
      value.forEach((item: unknown, index) => {
        const edge: Edge = keyword === 'prefixItems' ? `i:${index}` : 'in-place';
        held.push({ value: item, pointer: `${inside(keyword)}/${index}`, edge });
      });
    } else if (subschemaMaps.has(keyword)) {
      if (value === null || typeof value !== 'object' || Array.isArray(value)) {
        refuse(`${at(inside(keyword))} must be an object of schemas`);
      }
      for (const [name, entry] of Object.entries(value as Record<string, unknown>)) {
        const entryPointer = `${inside(keyword)}/${pointerToken(name)}`;
        if (keyword === 'patternProperties')
          checkPattern(name, `${at(entryPointer)} (key)`, walk, limits);
        // draft-07 `dependencies` mixes schemas with lists of property names.
        if (keyword === 'dependencies' && Array.isArray(entry)) continue;
        const edge: Edge =
          keyword === 'properties'
            ? `p:${name}`
            : keyword === 'patternProperties'
              ? 'p*'
              : keyword === 'definitions' || keyword === '$defs'
                ? 'unapplied'
                : 'in-place';
        held.push({ value: entry, pointer: entryPointer, edge });
      }
    }
  }
  return held;
}

function addAnchor(name: string, id: number, pointer: string, walk: Walk): void {
  if (walk.anchors.has(name)) {
    refuse(`anchor "#${foreignText(name)}" is declared twice (again at ${at(pointer)})`);
  }
  walk.anchors.set(name, id);
}

function link(parent: CostNode, edge: Edge, child: number): void {
  if (edge === 'in-place') parent.inPlace.push(child);
  else if (edge !== 'unapplied') parent.children.push({ key: edge, target: child });
}

/** Second pass, over the subschemas only: every keyword rule, and the graph for the cost bound. */
function walkSubschemas(schema: unknown, dialect: SchemaDialect, limits: SchemaLimits): Walk {
  const walk: Walk = {
    dialect,
    nodes: [],
    byPointer: new Map(),
    anchors: new Map(),
    refs: [],
    patterns: 0,
  };
  const pending: { value: unknown; pointer: string; parent: number; edge: Edge }[] = [
    { value: schema, pointer: '', parent: -1, edge: 'unapplied' },
  ];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const { value, pointer, parent, edge } = next;
    const id = walk.nodes.length;
    if (id >= limits.maxSubschemas) {
      refuse(`the schema has more than ${limits.maxSubschemas} subschemas`);
    }
    walk.nodes.push({ pointer, weight: 1, scans: 0, inPlace: [], children: [] });
    walk.byPointer.set(pointer, id);
    const parentNode = walk.nodes[parent];
    if (parentNode) link(parentNode, edge, id);

    if (typeof value === 'boolean') continue;
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      refuse(`${at(pointer)} is ${describe(value)}: a schema must be an object or a boolean`);
    }
    const held = checkSubschema(value as Record<string, unknown>, id, walk, limits);
    for (const entry of held) pending.push({ ...entry, parent: id });
  }
  return walk;
}

/** The subschema a local `$ref` names: the root, a JSON pointer to a subschema, or an anchor. */
function resolveRef(ref: string, walk: Walk): number | undefined {
  const fragment = ref.slice(1);
  if (fragment === '') return 0;
  if (!fragment.startsWith('/')) return walk.anchors.get(fragment);
  let tokens: string[];
  try {
    tokens = parseJsonPointer(decodeURIComponent(fragment));
  } catch (error) {
    if (error instanceof URIError || error instanceof JsonPointerError) return undefined;
    throw error;
  }
  // Only positions that are subschemas: a pointer into `default`, `enum` or an unknown
  // keyword would make ajv compile data the walk never checked.
  return walk.byPointer.get(tokens.map((token) => `/${pointerToken(token)}`).join(''));
}

/**
 * Whether a foreign schema may be compiled. Refuses, with a reason a person can act on, any
 * schema that breaks a bound in `limits` or that the validator could not run safely.
 */
export function guardSchema(
  schema: unknown,
  limits: Partial<SchemaLimits> = {},
): SchemaGuardResult {
  const bounds: SchemaLimits = { ...DEFAULT_SCHEMA_LIMITS, ...limits };
  try {
    checkJsonShape(schema, bounds);
    const dialect = schemaDialect(schema);
    if (!dialect) {
      const declared = (schema as { $schema?: unknown }).$schema;
      refuse(
        `$schema ${typeof declared === 'string' ? `"${foreignText(declared)}"` : describe(declared)} ` +
          'is not a supported dialect (draft-07, 2019-09, 2020-12)',
      );
    }
    const walk = walkSubschemas(schema, dialect, bounds);
    for (const { from, ref } of walk.refs) {
      const target = resolveRef(ref, walk);
      if (target === undefined) {
        refuse(
          `${at(`${from.pointer}/$ref`)} "${foreignText(ref)}" does not name a subschema of this schema`,
        );
      }
      from.inPlace.push(target);
    }
    const compilePath = longestCompilePath(walk.nodes, 0);
    if (compilePath > bounds.maxCompilePath) {
      refuse(
        `${compilePath} subschemas on one chain of nesting and $ref (at most ` +
          `${bounds.maxCompilePath}): compiling it would recurse too deep`,
      );
    }
    const cost = boundValidationCost(walk.nodes, 0, {
      maxCostPerValue: bounds.maxCostPerValue,
      maxStates: bounds.maxCostStates,
    });
    if (!cost.ok) return cost;
    return {
      ok: true,
      dialect,
      costPerValue: cost.costPerValue,
      scansPerString: cost.scansPerString,
    };
  } catch (error) {
    if (error instanceof SchemaRefusal) return { ok: false, reason: error.message };
    throw error;
  }
}

/** A schema's root `$id`, compared without an empty trailing fragment. */
function rootId(schema: unknown): string | undefined {
  if (schema === null || typeof schema !== 'object' || !Object.hasOwn(schema, '$id')) {
    return undefined;
  }
  const $id = (schema as { $id?: unknown }).$id;
  if (typeof $id !== 'string') return undefined;
  return $id.endsWith('#') ? $id.slice(0, -1) : $id;
}

/**
 * Guards every tool of one source. Returns, for each tool that must be uncallable, why: its
 * schema failed the guard, or it declares the same `$id` as another tool (both are refused,
 * since neither can be told from the other).
 */
export function guardToolSchemas(
  tools: readonly { name: string; input_schema: unknown }[],
): Map<string, string> {
  const reasons = new Map<string, string>();
  const namesById = new Map<string, string[]>();
  const namesSeen = new Set<string>();
  for (const tool of tools) {
    if (namesSeen.has(tool.name)) {
      reasons.set(tool.name, `two tools are named "${foreignText(tool.name)}"`);
    }
    namesSeen.add(tool.name);
    const result = guardSchema(tool.input_schema);
    if (!result.ok && !reasons.has(tool.name)) reasons.set(tool.name, result.reason);
    const id = rootId(tool.input_schema);
    if (id !== undefined) namesById.set(id, [...(namesById.get(id) ?? []), tool.name]);
  }
  for (const [id, names] of namesById) {
    if (names.length < 2) continue;
    for (const name of names) {
      if (reasons.has(name)) continue;
      const others = names
        .filter((other) => other !== name)
        .map((other) => `"${foreignText(other)}"`);
      reasons.set(name, `$id "${foreignText(id)}" is also declared by ${others.join(', ')}`);
    }
  }
  return reasons;
}
