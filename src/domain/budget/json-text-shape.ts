/**
 * What a JSON text's shape says before anything walks its parsed value, in one pass over the
 * text (no recursion, whatever the nesting):
 * - a member name written twice in one object: JSON.parse keeps the last, another parser may
 *   keep the first, so a body could be admitted for one value and answered for another;
 * - nesting deeper than a bound: every later walk of the value is then bounded too;
 * - a number literal longer than a bound: the gate counts a number as JavaScript reads it, but
 *   forwards the literal, which a lossless parser downstream could read at full length;
 * - more members and elements than a bound: what every later walk of the value costs.
 * Pure; expects text JSON.parse accepts.
 */

export type JsonTextProblem =
  | { kind: 'duplicate'; name: string }
  | { kind: 'too_deep'; maxDepth: number }
  | { kind: 'long_number'; maxLength: number }
  | { kind: 'too_many_values'; maxValues: number };

export function jsonTextProblem(
  json: string,
  {
    maxDepth,
    maxNumberLength,
    maxValues = Infinity,
  }: { maxDepth: number; maxNumberLength: number; maxValues?: number },
): JsonTextProblem | undefined {
  // Each member and each element after the first is announced by a ':' or a ',' outside strings.
  let separators = 0;
  // One entry per open container: the names seen so far, or null for an array.
  const stack: (Set<string> | null)[] = [];
  let i = 0;
  while (i < json.length) {
    const c = json[i] ?? '';
    if (c === '"') {
      const end = stringEnd(json, i);
      const top = stack[stack.length - 1];
      if (top && nextSignificant(json, end) === ':') {
        const name = JSON.parse(json.slice(i, end)) as string;
        if (top.has(name)) return { kind: 'duplicate', name };
        top.add(name);
      }
      i = end;
      continue;
    }
    if (c === '-' || (c >= '0' && c <= '9')) {
      const end = numberEnd(json, i);
      if (end - i > maxNumberLength) return { kind: 'long_number', maxLength: maxNumberLength };
      i = end;
      continue;
    }
    if (c === ':' || c === ',') {
      separators += 1;
      if (separators > maxValues) return { kind: 'too_many_values', maxValues };
    } else if (c === '{' || c === '[') {
      stack.push(c === '{' ? new Set() : null);
      if (stack.length > maxDepth) return { kind: 'too_deep', maxDepth };
    } else if (c === '}' || c === ']') stack.pop();
    i += 1;
  }
  return undefined;
}

/** The index just past the closing quote of the string literal starting at `start`. */
function stringEnd(json: string, start: number): number {
  let quote = json.indexOf('"', start + 1);
  // A quote preceded by an odd run of backslashes is escaped; jump, do not walk, long strings.
  while (quote !== -1 && escaped(json, quote)) quote = json.indexOf('"', quote + 1);
  return quote === -1 ? json.length : quote + 1;
}

function escaped(json: string, index: number): boolean {
  let backslashes = 0;
  while (json[index - 1 - backslashes] === '\\') backslashes += 1;
  return backslashes % 2 === 1;
}

/** The index just past the number literal starting at `start`. */
function numberEnd(json: string, start: number): number {
  let i = start + 1;
  while (i < json.length && '0123456789.eE+-'.includes(json[i] ?? ' ')) i += 1;
  return i;
}

function nextSignificant(json: string, from: number): string | undefined {
  let i = from;
  while (i < json.length && ' \t\r\n'.includes(json[i] ?? '')) i += 1;
  return json[i];
}
