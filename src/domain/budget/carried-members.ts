/**
 * Whether a schema's output carries every member of the JSON it read. The gate bounds a model
 * request from what its schema returns but forwards the bytes it received, so a member that a
 * parser or schema library drops or rewrites (`"__proto__"` out of a record, say) would reach
 * the provider uncounted. Pure: no I/O.
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
export function firstProtoMember(raw: unknown, path: Path = []): Path | undefined {
  if (Array.isArray(raw)) {
    for (let i = 0; i < raw.length; i++) {
      const found = firstProtoMember(raw[i], [...path, i]);
      if (found) return found;
    }
  } else if (isObject(raw)) {
    for (const key of Object.keys(raw)) {
      if (key === '__proto__') return [...path, key];
      const found = firstProtoMember(raw[key], [...path, key]);
      if (found) return found;
    }
  }
  return undefined;
}

/**
 * The path of the first member of `raw` (as JSON.parse made it) that `read` (the schema's
 * output) does not hold as it came, or undefined when every member is carried. Members `read`
 * adds are not looked at: counting more is safe.
 */
export function firstUncarriedMember(
  raw: unknown,
  read: unknown,
  path: Path = [],
): Path | undefined {
  if (typeof raw === 'string' && isTextBlockOf(raw, read)) return undefined;
  if (Array.isArray(raw)) {
    if (!Array.isArray(read) || read.length !== raw.length) return path;
    for (let i = 0; i < raw.length; i++) {
      const found = firstUncarriedMember(raw[i], (read as unknown[])[i], [...path, i]);
      if (found) return found;
    }
    return undefined;
  }
  if (isObject(raw)) {
    if (!isObject(read)) return path;
    for (const key of Object.keys(raw)) {
      if (!own(read, key)) return [...path, key];
      const found = firstUncarriedMember(raw[key], read[key], [...path, key]);
      if (found) return found;
    }
    return undefined;
  }
  return Object.is(raw, read) ? undefined : path;
}
