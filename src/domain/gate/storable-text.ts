/**
 * Text PostgreSQL cannot store: NUL (refused in text and in jsonb) and halves of UTF-16
 * surrogate pairs (jsonb refuses their escapes; as text they would be silently replaced, so
 * what is stored would differ from what was digested). Refused at the API, never stripped.
 */
const unstorable = /[\0]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** What is wrong with a string PostgreSQL cannot store, or undefined when it can store it. */
export function unstorableReason(text: string): string | undefined {
  const found = unstorable.exec(text);
  if (!found) return undefined;
  return found[0] === '\0'
    ? 'holds a NUL character, which cannot be stored'
    : 'holds half of a UTF-16 surrogate pair, which cannot be stored';
}

interface UnstorableField {
  /** Where, as the steps from the root: object keys and array indexes. */
  path: (string | number)[];
  /** A key is named by its own path, marked as the key rather than its value. */
  inKey: boolean;
  message: string;
}

/** A step from the root, linked to its parent: a deep value's paths cost nothing until named. */
interface Step {
  key: string | number;
  parent: Step | undefined;
}

function pathTo(step: Step | undefined): (string | number)[] {
  const path: (string | number)[] = [];
  for (let at = step; at; at = at.parent) path.push(at.key);
  return path.reverse();
}

/**
 * Every string in a JSON value, keys and values at any depth, that PostgreSQL cannot store.
 * Iterative, so a deep value costs no stack, and linear in its size; stops after `max` findings.
 */
export function unstorableFields(value: unknown, max = 20): UnstorableField[] {
  const found: UnstorableField[] = [];
  const stack: { value: unknown; at: Step | undefined }[] = [{ value, at: undefined }];
  while (stack.length > 0 && found.length < max) {
    const next = stack.pop();
    if (next === undefined) break;
    const { value: current, at } = next;
    if (typeof current === 'string') {
      const message = unstorableReason(current);
      if (message) found.push({ path: pathTo(at), inKey: false, message });
    } else if (Array.isArray(current)) {
      current.forEach((item, i) => stack.push({ value: item, at: { key: i, parent: at } }));
    } else if (typeof current === 'object' && current !== null) {
      for (const [key, item] of Object.entries(current)) {
        const step = { key, parent: at };
        const message = unstorableReason(key);
        if (message) found.push({ path: pathTo(step), inKey: true, message: `key ${message}` });
        stack.push({ value: item, at: step });
      }
    }
  }
  return found;
}

const unstorableAll = new RegExp(unstorable.source, 'g');

/** The text with each unstorable character written as its `\uXXXX` escape, fit to show. */
export function escapeUnstorable(text: string): string {
  return text.replace(
    unstorableAll,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
