/**
 * Finds a member name written twice in one object of a JSON text. JSON.parse keeps the last
 * one; another parser may keep the first, so a body with duplicates could be admitted for one
 * value and answered for another. Pure; expects text JSON.parse accepts.
 */
export function findDuplicateKey(json: string): string | undefined {
  // One entry per open container: the names seen so far, or null for an array.
  const stack: (Set<string> | null)[] = [];
  let i = 0;
  while (i < json.length) {
    const c = json[i];
    if (c === '"') {
      const end = stringEnd(json, i);
      const top = stack[stack.length - 1];
      if (top && nextSignificant(json, end) === ':') {
        const name = JSON.parse(json.slice(i, end)) as string;
        if (top.has(name)) return name;
        top.add(name);
      }
      i = end;
      continue;
    }
    if (c === '{') stack.push(new Set());
    else if (c === '[') stack.push(null);
    else if (c === '}' || c === ']') stack.pop();
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

function nextSignificant(json: string, from: number): string | undefined {
  let i = from;
  while (i < json.length && ' \t\r\n'.includes(json[i] ?? '')) i += 1;
  return json[i];
}
