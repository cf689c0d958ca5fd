/**
 * Characters that make text read differently from what runs: format characters (bidirectional
 * overrides and isolates, zero-width spaces and joiners, the BOM, tag characters), controls,
 * line and paragraph separators, spaces other than U+0020, private-use and unassigned code
 * points, variation selectors and the invisible fillers. Shown as their escape, never as
 * themselves.
 */
const hidden =
  /[\p{Cf}\p{Cc}\p{Zl}\p{Zp}\p{Zs}\p{Co}\p{Cn}\p{Variation_Selector}\u115F\u1160\u3164\uFFA0]|\u034F/gu;

const shownAsIs = new Set([' ', '\n']);

interface VisibleText {
  text: string;
  /** Whether anything was escaped: the page then says so. */
  escaped: boolean;
}

/** The text with every hidden character written as `\u{…}`, so an approver sees what runs. */
export function visibleText(text: string): VisibleText {
  let escaped = false;
  const out = text.replace(hidden, (char) => {
    if (shownAsIs.has(char)) return char;
    escaped = true;
    return `\\u{${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}}`;
  });
  return { text: out, escaped };
}
