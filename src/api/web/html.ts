/**
 * HTML that is safe to send: built only by the `html` template tag, which escapes every
 * interpolated value that is not itself SafeHtml. Untrusted text (tool arguments, names, reasons)
 * can therefore reach a page only as text, never as markup.
 */
const minted = Symbol('SafeHtml');

export class SafeHtml {
  readonly text: string;
  constructor(key: typeof minted, text: string) {
    // The key is private to this module: no other code can declare a string to be safe HTML.
    if (key !== minted) throw new TypeError('SafeHtml is made only by the html template tag');
    this.text = text;
  }

  toString(): string {
    return this.text;
  }
}

type HtmlValue = SafeHtml | string | number | null | undefined | false | readonly HtmlValue[];

const entities: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Escapes text for an element body or a quoted attribute value. */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => entities[c] ?? c);
}

function render(value: HtmlValue): string {
  if (value instanceof SafeHtml) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

/** The template tag: literal parts are trusted markup, interpolations are escaped. */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    out += render(value) + (strings[i + 1] ?? '');
  });
  return new SafeHtml(minted, out);
}
