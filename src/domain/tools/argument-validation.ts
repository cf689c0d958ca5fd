import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import RE2 from 're2';
import { foreignText, pointerToken } from './foreign-text.js';
import { safeFormats } from './safe-formats.js';
import { guardSchema, type SchemaDialect } from './schema-guard.js';

/**
 * Tool-call arguments checked against the tool's frozen input schema, with ajv.
 *
 * The schema is foreign, so compiling it is guarded (schema-guard.ts) and cached by digest;
 * validating with it never throws: a schema that cannot be used is a distinct failure the
 * caller denies with source=schema, like any other schema failure (fail closed).
 */

/** Compiled validators kept; each holds its own ajv instance, so eviction frees it all. */
export const VALIDATOR_CACHE_SIZE = 256;
/** Nesting of the arguments: ajv's validators recurse once per level. */
export const MAX_ARGUMENT_DEPTH = 64;
/**
 * Units of work one validation may take: each value times the schema's cost per value, plus
 * each string's length (in STRING_CHARS_PER_UNIT) times the scans a string may get. A unit is
 * a fraction of a microsecond, so this keeps one validation to tens of milliseconds.
 */
const MAX_VALIDATION_WORK = 500_000;
/** Characters RE2 or ajv's length count read in about the time of checking one value. */
const STRING_CHARS_PER_UNIT = 64;
/** Failing paths named in the message; ajv stops at the first failure, unions add a few. */
const MAX_REPORTED_ERRORS = 8;
/** Characters of one error's text: a pattern in it comes from the foreign schema. */
const MAX_ERROR_TEXT = 200;

export interface ArgumentError {
  /** JSON pointer (RFC 6901) to the failing argument; for a missing one, where it belongs. */
  path: string;
  message: string;
}

export type ArgumentValidation =
  | { valid: true }
  /** The arguments do not match: the model can read `message` and try again. */
  | { valid: false; kind: 'arguments'; errors: ArgumentError[]; message: string }
  /** The schema cannot be used to validate anything: the tool is uncallable. */
  | { valid: false; kind: 'schema'; message: string };

type Compiled =
  | { usable: true; validate: ValidateFunction; costPerValue: number; scansPerString: number }
  | { usable: false; message: string };

const re2Engine = Object.assign((pattern: string, flags: string) => new RE2(pattern, flags), {
  code: 'RE2',
});

const formats = Object.fromEntries(
  [...safeFormats].map(([name, validate]) => [name, { type: 'string' as const, validate }]),
);

/**
 * One decision per option, for schemas nobody here wrote:
 * - strict off, logger off: unknown keywords (`x-...`, `examples` in older dialects) are
 *   ignored silently rather than refusing half the published servers; the guard has already
 *   refused what is dangerous.
 * - allowMatchingProperties: otherwise ajv tests `patternProperties` against `properties`
 *   names at compile time with the native, backtracking RegExp.
 * - RE2 as the regular expression engine: every `pattern` runs in linear time.
 * - formats: only the safe list, each a linear check; the guard refuses any other.
 * - allErrors off: ajv stops at the first failure, so a hostile schema cannot make it
 *   collect an error per item of a large argument.
 * - inlineRefs off: inlining copies a subschema's code at every `$ref` to it.
 * - optimize off: ajv's code optimiser costs more than it saves for a validator used a
 *   few times, and grows faster than linearly with the schema.
 * - validateSchema and meta off here: the meta-schema check runs once, on a shared instance.
 * - addUsedSchema off: nothing of the schema is registered by its `$id`.
 * - ownProperties: inherited properties of an argument are never read.
 * - $data, useDefaults, coerceTypes and removeAdditional stay off: the schema describes the
 *   arguments, it never changes them.
 */
const compileOptions: Options = {
  strict: false,
  logger: false,
  allowMatchingProperties: true,
  code: { regExp: re2Engine, optimize: false },
  formats,
  allErrors: false,
  inlineRefs: false,
  loopEnum: 16,
  validateSchema: false,
  meta: false,
  addUsedSchema: false,
  ownProperties: true,
  $data: false,
  useDefaults: false,
  coerceTypes: false,
  removeAdditional: false,
};

const engines = { 'draft-07': Ajv, '2019-09': Ajv2019, '2020-12': Ajv2020 } as const;

type AjvInstance = InstanceType<(typeof engines)[SchemaDialect]>;

/** One long-lived instance per dialect checks schemas against the meta-schema. */
const metaCheckers = new Map<SchemaDialect, AjvInstance>();

function metaChecker(dialect: SchemaDialect): AjvInstance {
  let checker = metaCheckers.get(dialect);
  if (!checker) {
    // validateSchema() stores nothing of the schema it checks, so this never grows.
    checker = new engines[dialect]({
      strict: false,
      logger: false,
      validateFormats: false,
      code: { regExp: re2Engine },
    });
    metaCheckers.set(dialect, checker);
  }
  return checker;
}

function compile(schema: Record<string, unknown>): Compiled {
  // Guarded again here: nothing reaches ajv unguarded, and the guard's cost bound sizes the
  // work budget for arguments.
  const guard = guardSchema(schema);
  if (!guard.ok) {
    return { usable: false, message: `the tool's input schema is refused: ${guard.reason}` };
  }
  try {
    const checker = metaChecker(guard.dialect);
    // The dialect is known; check against its meta-schema whatever spelling $schema used.
    const body = { ...schema };
    delete body.$schema;
    if (!checker.validateSchema(body)) {
      const problems = foreignText(checker.errorsText(checker.errors, { dataVar: 'schema' }), 300);
      return {
        usable: false,
        message: `the tool's input schema is not valid ${guard.dialect}: ${problems}`,
      };
    }
    // A fresh instance per schema: ajv keeps every compiled schema's values in its instance.
    const validate = new engines[guard.dialect](compileOptions).compile(body);
    return {
      usable: true,
      validate,
      costPerValue: guard.costPerValue,
      scansPerString: guard.scansPerString,
    };
  } catch (error) {
    return {
      usable: false,
      message: `the tool's input schema cannot be compiled: ${foreignText((error as Error).message)}`,
    };
  }
}

/** What validating `args` can cost under a schema's bounds, or `undefined` when too deep. */
function validationWork(
  args: unknown,
  bounds: { costPerValue: number; scansPerString: number },
): number | undefined {
  const weigh = (value: unknown): number =>
    bounds.costPerValue +
    (typeof value === 'string'
      ? Math.floor(value.length / STRING_CHARS_PER_UNIT) * bounds.scansPerString
      : 0);
  let work = weigh(args);
  const pending: { value: object; depth: number }[] = [];
  if (args !== null && typeof args === 'object') pending.push({ value: args, depth: 1 });
  // Stops once over budget: the count itself must not be the slow part.
  for (let next = pending.pop(); next && work <= MAX_VALIDATION_WORK; next = pending.pop()) {
    if (next.depth > MAX_ARGUMENT_DEPTH) return undefined;
    const members: unknown[] = Array.isArray(next.value) ? next.value : Object.values(next.value);
    for (const member of members) {
      work += weigh(member);
      if (member !== null && typeof member === 'object') {
        pending.push({ value: member, depth: next.depth + 1 });
      }
    }
  }
  return work;
}

function param(error: ErrorObject, name: string): string | undefined {
  const value: unknown = (error.params as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : undefined;
}

/** ajv's error as the model should read it: the pointer of the argument at fault. */
function toArgumentError(error: ErrorObject): ArgumentError {
  const missing = param(error, 'missingProperty');
  if (missing !== undefined) {
    return { path: `${error.instancePath}/${pointerToken(missing)}`, message: 'is required' };
  }
  const extra = param(error, 'additionalProperty') ?? param(error, 'unevaluatedProperty');
  if (extra !== undefined) {
    return { path: `${error.instancePath}/${pointerToken(extra)}`, message: 'is not allowed' };
  }
  return { path: error.instancePath, message: error.message ?? `fails ${error.keyword}` };
}

function argumentsFailure(errors: ArgumentError[]): ArgumentValidation {
  const reported = errors.slice(0, MAX_REPORTED_ERRORS);
  const parts = reported.map((e) =>
    foreignText(`${e.path === '' ? '(arguments)' : e.path} ${e.message}`, MAX_ERROR_TEXT),
  );
  const more =
    errors.length > reported.length ? `; and ${errors.length - reported.length} more` : '';
  return {
    valid: false,
    kind: 'arguments',
    errors,
    message: `Invalid arguments: ${parts.join('; ')}${more}`,
  };
}

/** Compiled validators by schema digest, least recently used evicted first. */
export class ArgumentValidator {
  private readonly cache = new Map<string, Compiled>();
  private compiles = 0;

  constructor(readonly capacity: number = VALIDATOR_CACHE_SIZE) {}

  /** Validators held now. */
  get size(): number {
    return this.cache.size;
  }

  /** Schemas compiled so far: a cache hit compiles nothing. */
  get compilations(): number {
    return this.compiles;
  }

  private compiled(schema: Record<string, unknown>, schemaDigest: string): Compiled {
    const hit = this.cache.get(schemaDigest);
    if (hit) {
      this.cache.delete(schemaDigest);
      this.cache.set(schemaDigest, hit);
      return hit;
    }
    // A refusal is cached too: a hostile schema is never compiled twice.
    const entry = compile(schema);
    this.compiles += 1;
    if (this.cache.size >= this.capacity) {
      const oldest = this.cache.keys().next();
      if (!oldest.done) this.cache.delete(oldest.value);
    }
    this.cache.set(schemaDigest, entry);
    return entry;
  }

  /** Why the schema cannot validate anything, or `undefined` when it can; compiles and caches. */
  schemaProblem(schema: Record<string, unknown>, schemaDigest: string): string | undefined {
    const entry = this.compiled(schema, schemaDigest);
    return entry.usable ? undefined : entry.message;
  }

  /**
   * Validates `args` against `schema`. `schemaDigest` must be `digestOf(schema)`: it is the
   * cache key, trusted as such.
   */
  validate(
    schema: Record<string, unknown>,
    schemaDigest: string,
    args: unknown,
  ): ArgumentValidation {
    const entry = this.compiled(schema, schemaDigest);
    if (!entry.usable) return { valid: false, kind: 'schema', message: entry.message };
    const work = validationWork(args, entry);
    if (work === undefined) {
      return argumentsFailure([
        { path: '', message: `nest deeper than ${MAX_ARGUMENT_DEPTH} levels` },
      ]);
    }
    if (work > MAX_VALIDATION_WORK) {
      return argumentsFailure([
        { path: '', message: `are too large to validate against this tool's schema; send less` },
      ]);
    }
    try {
      if (entry.validate(args)) return { valid: true };
      return argumentsFailure((entry.validate.errors ?? []).map(toArgumentError));
    } catch (error) {
      return {
        valid: false,
        kind: 'schema',
        message: `the tool's input schema failed while validating: ${foreignText((error as Error).message)}`,
      };
    }
  }
}

const shared = new ArgumentValidator();

/** Validates against the process-wide cache of VALIDATOR_CACHE_SIZE compiled validators. */
export function validateArguments(
  schema: Record<string, unknown>,
  schemaDigest: string,
  args: unknown,
): ArgumentValidation {
  return shared.validate(schema, schemaDigest, args);
}
