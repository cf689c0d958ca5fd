/**
 * Text that came from outside (a foreign schema, a model's arguments), made fit to quote in a
 * one-line reason: control and line-separator characters escaped, and cut to `max` characters.
 */
export function foreignText(text: string, max = 120): string {
  let out = '';
  for (const char of text) {
    const code = char.charCodeAt(0);
    const control =
      code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029;
    out += control ? `\\u${code.toString(16).padStart(4, '0')}` : char;
    if (out.length > max) return `${out.slice(0, max)}…`;
  }
  return out;
}

/** A name as one token of an RFC 6901 JSON pointer. */
export function pointerToken(name: string): string {
  return name.replace(/~/g, '~0').replace(/\//g, '~1');
}
