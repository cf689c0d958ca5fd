/**
 * Whether a schema's output carries every member of the JSON it read. The gate bounds a model
 * request from what its schema returns but forwards the bytes it received, so a member that a
 * parser or schema library drops or rewrites (`"__proto__"` out of a record, say) would reach
 * the provider uncounted. Pure: no I/O. The walks recurse: the body's nesting is bounded before
 * they run (json-text-shape.ts); the path is one array, copied only when something is found.
 */

type Path = (string | number)[];

const own = (value: object, key: string) => Object.prototype.hasOwnProperty.call(value, key);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A string the schema reads as one text block, as the Messages API does. */
function isTextBlockOf(raw: string, read: unknown): boolean {
  if (!Array.isArray(read) || read.length !== 1) return false;
  const [block] = read as unknown[];
  return (
    isObject(block) &&
    Object.keys(block).length === 2 &&
    block.type === 'text' &&
    block.text === raw
  );
}

/**
 * The path of the first member named `__proto__`, at any depth. JSON.parse keeps it as data, but
 * schema libraries drop it and JavaScript code downstream (a provider's own gateway) may read it
 * as the prototype: the gate forwards no such member.
 */
export function firstProtoMember(raw: unknown): Path | undefined {
  const path: Path = [];
  const walk = (value: unknown): boolean => {
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        path.push(i);
        if (walk(value[i])) return true;
        path.pop();
      }
    } else if (isObject(value)) {
      for (const key of Object.keys(value)) {
        path.push(key);
        if (key === '__proto__' || walk(value[key])) return true;
        path.pop();
      }
    }
    return false;
  };
  return walk(raw) ? [...path] : undefined;
}

/**
 * The path of the first member of `raw` (as JSON.parse made it) that `read` (the schema's
 * output) does not hold as it came, or undefined when every member is carried. Members `read`
 * adds are not looked at: counting more is safe.
 */
export function firstUncarriedMember(raw: unknown, read: unknown): Path | undefined {
  const path: Path = [];
  const differs = (a: unknown, b: unknown): boolean => {
    if (typeof a === 'string' && isTextBlockOf(a, b)) return false;
    if (Array.isArray(a)) {
      if (!Array.isArray(b) || b.length !== a.length) return true;
      for (let i = 0; i < a.length; i++) {
        path.push(i);
        if (differs(a[i], (b as unknown[])[i])) return true;
        path.pop();
      }
      return false;
    }
    if (isObject(a)) {
      if (!isObject(b)) return true;
      for (const key of Object.keys(a)) {
        path.push(key);
        if (!own(b, key) || differs(a[key], b[key])) return true;
        path.pop();
      }
      return false;
    }
    return !Object.is(a, b);
  };
  return differs(raw, read) ? [...path] : undefined;
}
