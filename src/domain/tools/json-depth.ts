/**
 * Whether a parsed JSON value nests no deeper than `max` levels. Iterative, so a hostile value
 * cannot overflow the stack here: it is refused before anything recursive (digests, ajv) sees it.
 */
export function jsonDepthWithin(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop() as [unknown, number];
    if (current === null || typeof current !== 'object') continue;
    if (depth >= max) return false;
    for (const child of Array.isArray(current) ? current : Object.values(current)) {
      stack.push([child, depth + 1]);
    }
  }
  return true;
}
