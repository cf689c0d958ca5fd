/**
 * SCIM filters (RFC 7644 §3.4.2.2): parsed into a tree and evaluated on a resource as served.
 * `attrPath op value`, `pr`, `and`, `or`, `not (…)`, parentheses and value paths
 * (`emails[type eq "work"]`). Any filter this parser cannot read is refused as `invalidFilter`.
 */
import { ScimError } from './scim-error.js';

export type CompareOp = 'eq' | 'ne' | 'co' | 'sw' | 'ew' | 'gt' | 'ge' | 'lt' | 'le';
export type Literal = string | number | boolean | null;

/** An attribute path: its attribute and, for a complex one, its sub-attribute. */
export interface AttrPath {
  attribute: string;
  sub?: string | undefined;
}

export type Filter =
  | { kind: 'compare'; path: AttrPath; op: CompareOp; value: Literal }
  | { kind: 'present'; path: AttrPath }
  | { kind: 'and' | 'or'; left: Filter; right: Filter }
  | { kind: 'not'; filter: Filter }
  | { kind: 'valuePath'; attribute: string; filter: Filter };

const compareOps = new Set(['eq', 'ne', 'co', 'sw', 'ew', 'gt', 'ge', 'lt', 'le']);
const maxLength = 4_000;
const maxDepth = 32;

const invalidFilter = (detail: string) => new ScimError(400, detail, 'invalidFilter');

type Token =
  | { kind: 'word'; text: string }
  | { kind: 'string'; text: string }
  | { kind: 'punct'; text: string };

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const c = source.charAt(i);
    if (/\s/.test(c)) {
      i += 1;
    } else if ('()[]'.includes(c)) {
      tokens.push({ kind: 'punct', text: c });
      i += 1;
    } else if (c === '"') {
      let j = i + 1;
      while (j < source.length && source.charAt(j) !== '"') j += source.charAt(j) === '\\' ? 2 : 1;
      if (j >= source.length) throw invalidFilter('a string in the filter is not closed');
      try {
        tokens.push({ kind: 'string', text: JSON.parse(source.slice(i, j + 1)) as string });
      } catch {
        throw invalidFilter('a string in the filter has a bad escape');
      }
      i = j + 1;
    } else {
      let j = i;
      while (j < source.length && !/[\s()[\]"]/.test(source.charAt(j))) j += 1;
      tokens.push({ kind: 'word', text: source.slice(i, j) });
      i = j;
    }
  }
  return tokens;
}

/** A path as written, its schema URN (if any) dropped: `name.givenName` → name, givenName. */
export function parseAttrPath(text: string, schemaUrns: readonly string[] = []): AttrPath {
  let rest = text;
  for (const urn of schemaUrns) {
    if (rest.toLowerCase().startsWith(`${urn.toLowerCase()}:`)) rest = rest.slice(urn.length + 1);
  }
  const match = /^(\$?[A-Za-z][\w$-]*)(?:\.(\$?[A-Za-z][\w$-]*))?$/.exec(rest);
  if (!match?.[1]) throw invalidFilter(`"${text}" is not an attribute path`);
  return { attribute: match[1], sub: match[2] };
}

class Parser {
  private at = 0;
  private depth = 0;
  constructor(
    private readonly tokens: Token[],
    private readonly urns: readonly string[],
  ) {}

  parse(): Filter {
    const filter = this.or();
    if (this.at < this.tokens.length) throw invalidFilter('the filter has more after its end');
    return filter;
  }

  private peekWord(): string | undefined {
    const token = this.tokens[this.at];
    return token?.kind === 'word' ? token.text.toLowerCase() : undefined;
  }

  private expect(text: string): void {
    const token = this.tokens[this.at];
    if (token?.kind !== 'punct' || token.text !== text) throw invalidFilter(`"${text}" expected`);
    this.at += 1;
  }

  private or(): Filter {
    let left = this.and();
    while (this.peekWord() === 'or') {
      this.at += 1;
      left = { kind: 'or', left, right: this.and() };
    }
    return left;
  }

  private and(): Filter {
    let left = this.unary();
    while (this.peekWord() === 'and') {
      this.at += 1;
      left = { kind: 'and', left, right: this.unary() };
    }
    return left;
  }

  private unary(): Filter {
    this.depth += 1;
    if (this.depth > maxDepth) throw invalidFilter('the filter nests too deep');
    try {
      if (this.peekWord() === 'not') {
        this.at += 1;
        this.expect('(');
        const filter = this.or();
        this.expect(')');
        return { kind: 'not', filter };
      }
      const token = this.tokens[this.at];
      if (token?.kind === 'punct' && token.text === '(') {
        this.at += 1;
        const filter = this.or();
        this.expect(')');
        return filter;
      }
      return this.attributeExpression();
    } finally {
      this.depth -= 1;
    }
  }

  private attributeExpression(): Filter {
    const token = this.tokens[this.at];
    if (token?.kind !== 'word') throw invalidFilter('an attribute path expected');
    this.at += 1;
    const next = this.tokens[this.at];
    if (next?.kind === 'punct' && next.text === '[') {
      const path = parseAttrPath(token.text, this.urns);
      if (path.sub !== undefined) throw invalidFilter(`"${token.text}[" is not a value path`);
      this.at += 1;
      const filter = this.or();
      this.expect(']');
      return { kind: 'valuePath', attribute: path.attribute, filter };
    }
    const path = parseAttrPath(token.text, this.urns);
    const op = this.peekWord();
    if (op === 'pr') {
      this.at += 1;
      return { kind: 'present', path };
    }
    if (op === undefined || !compareOps.has(op)) {
      throw invalidFilter(
        `an operator (eq, ne, co, sw, ew, gt, ge, lt, le, pr) expected after ${token.text}`,
      );
    }
    this.at += 1;
    return { kind: 'compare', path, op: op as CompareOp, value: this.literal() };
  }

  private literal(): Literal {
    const token = this.tokens[this.at];
    this.at += 1;
    if (token?.kind === 'string') return token.text;
    if (token?.kind === 'word') {
      const word = token.text.toLowerCase();
      if (word === 'true') return true;
      if (word === 'false') return false;
      if (word === 'null') return null;
      if (/^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(token.text)) return Number(token.text);
    }
    throw invalidFilter('a value (a "string", a number, true, false or null) expected');
  }
}

/** Parses a filter; `urns` are the schema URNs an attribute path may be prefixed with. */
export function parseFilter(source: string, urns: readonly string[] = []): Filter {
  if (source.length > maxLength) throw invalidFilter(`the filter is longer than ${maxLength}`);
  const tokens = tokenize(source);
  if (tokens.length === 0) throw invalidFilter('the filter is empty');
  return new Parser(tokens, urns).parse();
}

/** Attributes compared exactly; every other string compares without regard to case. */
/**
 * Attributes compared with their case. Not `id` nor a member's `value`: the gate's ids are UUIDs,
 * whose hex digits have no case, and a provider may send them in capitals; nor an email's `value`.
 */
const caseExact = new Set(['externalid', '$ref']);

function field(object: unknown, name: string): unknown {
  if (typeof object !== 'object' || object === null || Array.isArray(object)) return undefined;
  const wanted = name.toLowerCase();
  const key = Object.keys(object).find((k) => k.toLowerCase() === wanted);
  return key === undefined ? undefined : (object as Record<string, unknown>)[key];
}

/** The values a path reaches on a resource: several for a multi-valued attribute. */
function valuesAt(resource: unknown, path: AttrPath): unknown[] {
  const top = field(resource, path.attribute);
  const items = Array.isArray(top) ? top : top === undefined ? [] : [top];
  // A complex multi-valued attribute compared whole is compared by its `value` (RFC 7644 §3.4.2.2).
  const sub =
    path.sub ?? (items.some((i) => typeof i === 'object' && i !== null) ? 'value' : undefined);
  const reached = sub === undefined ? items : items.map((item) => field(item, sub));
  return reached.filter((v) => v !== undefined && v !== null && v !== '');
}

function compare(actual: unknown, op: CompareOp, expected: Literal, exact: boolean): boolean {
  if (op === 'eq' || op === 'ne') {
    let same: boolean;
    if (typeof actual === 'string' && typeof expected === 'string') {
      same = exact ? actual === expected : actual.toLowerCase() === expected.toLowerCase();
    } else {
      same = actual === expected;
    }
    return op === 'eq' ? same : !same;
  }
  if (typeof expected === 'boolean' || expected === null) {
    throw invalidFilter(`${op} cannot compare a boolean or null`);
  }
  if (typeof actual === 'number' && typeof expected === 'number') {
    return {
      gt: actual > expected,
      ge: actual >= expected,
      lt: actual < expected,
      le: actual <= expected,
    }[op as 'gt' | 'ge' | 'lt' | 'le'];
  }
  if (typeof actual !== 'string' || typeof expected !== 'string') return false;
  const a = exact ? actual : actual.toLowerCase();
  const e = exact ? expected : expected.toLowerCase();
  switch (op) {
    case 'co':
      return a.includes(e);
    case 'sw':
      return a.startsWith(e);
    case 'ew':
      return a.endsWith(e);
    case 'gt':
      return a > e;
    case 'ge':
      return a >= e;
    case 'lt':
      return a < e;
    case 'le':
      return a <= e;
  }
}

/** Whether a resource (or a value of a multi-valued attribute, in a value path) matches. */
export function matches(filter: Filter, resource: unknown): boolean {
  switch (filter.kind) {
    case 'and':
      return matches(filter.left, resource) && matches(filter.right, resource);
    case 'or':
      return matches(filter.left, resource) || matches(filter.right, resource);
    case 'not':
      return !matches(filter.filter, resource);
    case 'present':
      return valuesAt(resource, filter.path).length > 0;
    case 'valuePath': {
      const top = field(resource, filter.attribute);
      const items = Array.isArray(top) ? top : top === undefined ? [] : [top];
      return items.some((item) => matches(filter.filter, item));
    }
    case 'compare': {
      const exact = caseExact.has((filter.path.sub ?? filter.path.attribute).toLowerCase());
      const values = valuesAt(resource, filter.path);
      if (filter.op === 'ne') return values.every((v) => compare(v, 'ne', filter.value, exact));
      return values.some((v) => compare(v, filter.op, filter.value, exact));
    }
  }
}
