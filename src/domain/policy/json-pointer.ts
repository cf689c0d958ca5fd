import { GateError } from '../errors.js';
/** RFC 6901 JSON pointers over parsed JSON. Only own properties are followed. */

export class JsonPointerError extends GateError {
  override name = 'JsonPointerError';
  readonly code = 'invalid_json_pointer';
}

export function parseJsonPointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/'))
    throw new JsonPointerError(`"${pointer}" must be empty or start with "/"`);
  return pointer
    .slice(1)
    .split('/')
    .map((token) => {
      if (/~[^01]|~$/.test(token)) throw new JsonPointerError(`"${pointer}" has a bad "~" escape`);
      return token.replace(/~1/g, '/').replace(/~0/g, '~');
    });
}

const arrayIndex = /^(0|[1-9][0-9]*)$/;

/** The value the pointer names, or `undefined` when it names nothing. */
export function resolveJsonPointer(document: unknown, tokens: readonly string[]): unknown {
  let current: unknown = document;
  for (const token of tokens) {
    if (Array.isArray(current)) {
      if (!arrayIndex.test(token)) return undefined;
      const index = Number(token);
      if (index >= current.length) return undefined;
      current = current[index];
    } else if (current !== null && typeof current === 'object') {
      if (!Object.hasOwn(current, token)) return undefined;
      current = (current as Record<string, unknown>)[token];
    } else {
      return undefined;
    }
  }
  return current;
}
