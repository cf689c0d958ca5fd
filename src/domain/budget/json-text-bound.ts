/** Upper bounds on the bytes of a JSON value as any common serialiser writes it. Pure. */

/**
 * Bytes of a JSON string literal with every non-ASCII UTF-16 unit written as \uXXXX, the
 * longest common rendering (Python's json.dumps default). Six bytes per unit is never less than
 * the unit's UTF-8 bytes, so the raw UTF-8 rendering is covered too.
 */
function jsonStringBound(value: string): number {
  let bytes = 2;
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i);
    if (unit >= 0x20 && unit < 0x7f) bytes += unit === 0x22 || unit === 0x5c ? 2 : 1;
    else bytes += 6;
  }
  return bytes;
}

/**
 * Bytes of a number in any shortest round-trip rendering. JavaScript writes integers below 1e21
 * in full; Python may add ".0", keep the sign of -0 or an exponent's zero (3 bytes of slack), and
 * writes a large integer with all its digits.
 */
function jsonNumberBound(value: number): number {
  const magnitude = Math.abs(value);
  const digits =
    magnitude >= 1e21 ? Math.floor(Math.log10(magnitude)) + 2 : JSON.stringify(value).length;
  return digits + 3;
}

/**
 * Bytes of a JSON value as the longest common serialiser writes it: ASCII-escaped strings and
 * Python's ", " and ": " separators (4 bytes a member, 2 an element), which covers canonical
 * and JSON.stringify output as well. Depth is bounded by the schema.
 */
export function jsonTextBound(value: unknown): number {
  if (value === null) return 4;
  if (typeof value === 'boolean') return 5;
  if (typeof value === 'number') return jsonNumberBound(value);
  if (typeof value === 'string') return jsonStringBound(value);
  if (Array.isArray(value)) {
    return (value as unknown[]).reduce<number>((sum, item) => sum + jsonTextBound(item) + 2, 2);
  }
  if (typeof value === 'object') {
    // Like JSON.stringify, a member whose value is undefined is not written.
    return Object.entries(value).reduce(
      (sum, [key, item]) =>
        item === undefined ? sum : sum + jsonStringBound(key) + jsonTextBound(item) + 4,
      2,
    );
  }
  throw new TypeError('a structured part of the input is not JSON');
}
