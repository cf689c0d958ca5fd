import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { visibleText } from '../../src/api/web/visible-text.js';

describe('what the approval page shows of hidden characters', () => {
  const cases: [string, string, string][] = [
    ['a right-to-left override', 'rm \u202Egnp.exe', 'rm \\u{202E}gnp.exe'],
    ['an isolate', 'a\u2066b\u2069', 'a\\u{2066}b\\u{2069}'],
    ['a zero-width space and joiner', 'r\u200Bm\u200D', 'r\\u{200B}m\\u{200D}'],
    ['a BOM and a word joiner', '\uFEFFx\u2060', '\\u{FEFF}x\\u{2060}'],
    ['a tag character', 'a\u{E0041}', 'a\\u{E0041}'],
    ['a no-break space', 'rm\u00A0-rf', 'rm\\u{00A0}-rf'],
    ['a line separator', 'a\u2028b', 'a\\u{2028}b'],
    ['a variation selector', 'x\uFE0F', 'x\\u{FE0F}'],
    ['a Hangul filler', 'a\u3164b', 'a\\u{3164}b'],
    ['a soft hyphen', 'r\u00ADm', 'r\\u{00AD}m'],
    ['a DEL', 'a\u007F', 'a\\u{007F}'],
  ];
  for (const [name, text, shown] of cases) {
    test(`${name} is shown as its code, with a notice`, () => {
      assert.deepEqual(visibleText(text), { text: shown, escaped: true });
    });
  }

  test('ordinary text, spaces and line breaks pass as they are', () => {
    const text = '{\n  "command": "npm test — ünïcödé 日本 \u{1F600}"\n}';
    assert.deepEqual(visibleText(text), { text, escaped: false });
  });
});
