import assert from 'node:assert/strict';
import { test } from 'node:test';
import { headline } from '../../src/core/format';
import { visible } from '../../src/core/visible';

/**
 * Issue 44 item 4: a file touched named `src/evil\u202Ests.js` was shown as `src/evilsj.sts`. Every character
 * that draws nothing or changes how its neighbours are drawn is written as ⟨U+XXXX⟩ by one function.
 */

const HIDDEN: Array<[string, string]> = [
  ['\u202A', 'LRE'], ['\u202B', 'RLE'], ['\u202C', 'PDF'], ['\u202D', 'LRO'], ['\u202E', 'RLO'],
  ['\u2066', 'LRI'], ['\u2067', 'RLI'], ['\u2068', 'FSI'], ['\u2069', 'PDI'], ['\u200E', 'LRM'], ['\u200F', 'RLM'], ['\u061C', 'ALM'],
  ['\u200B', 'zero-width space'], ['\u200C', 'ZWNJ'], ['\u200D', 'ZWJ'], ['\u2060', 'word joiner'], ['\uFEFF', 'BOM'], ['\u00AD', 'soft hyphen'],
  ['\u0000', 'NUL'], ['\u001B', 'ESC'], ['\u0007', 'BEL'], ['\u007F', 'DEL'], ['\u0085', 'NEL'], ['\u009B', 'CSI'],
  ['\u2028', 'line separator'], ['\u2029', 'paragraph separator'], ['\u{E0041}', 'tag A'], ['\uFE00', 'variation selector 1'], ['\uD800', 'lone high surrogate'], ['\uDC00', 'lone low surrogate'],
  ['\u{E0100}', 'variation selector 17'], ['\u{1D173}', 'musical symbol begin beam'],
];

test('every bidirectional, zero-width, control, separator and tag character is written as ⟨U+XXXX⟩ between Latin letters', () => {
  for (const [ch, name] of HIDDEN) {
    const hex = ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
    assert.equal(visible(`ab${ch}cd`), `ab⟨U+${hex}⟩cd`, name);
    assert.equal(visible(`ab${ch}cd`, { lines: true }), `ab⟨U+${hex}⟩cd`, `${name} (multi-line text)`);
  }
});

test('each code unit of the BMP on its own is written as ⟨U+XXXX⟩ exactly when the pattern of hidden characters matches it', () => {
  const pattern = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{Default_Ignorable_Code_Point}]/u;
  const wrong: string[] = [];
  for (let c = 0; c < 0x10000; c++) {
    const ch = String.fromCharCode(c);
    const hex = c.toString(16).toUpperCase().padStart(4, '0');
    // between two Latin letters no joiner or selector is part of how its neighbours are drawn
    const shown = visible(`a${ch}b`);
    if (shown !== (pattern.test(ch) ? `a⟨U+${hex}⟩b` : `a${ch}b`)) wrong.push(hex);
  }
  assert.deepEqual(wrong, []);
});

test('the spoofed file name reads as its characters, in the order they are stored', () => {
  assert.equal(visible('src/evil\u202Ests.js'), 'src/evil⟨U+202E⟩sts.js');
});

test('a label is one line (newlines and tabs written out); multi-line text keeps them, and a carriage return only before a newline', () => {
  assert.equal(visible('a\tb\nc\r\nd'), 'a⟨U+0009⟩b⟨U+000A⟩c⟨U+000D⟩⟨U+000A⟩d');
  assert.equal(visible('a\tb\nc\r\nd\re', { lines: true }), 'a\tb\nc\r\nd⟨U+000D⟩e');
});

test('text without hidden characters is returned as it is, and what makes a character stays: emoji joiners, presentation selectors, the joiners of Persian and Indic', () => {
  for (const plain of ['plain ASCII', 'Grüße, naïve café', 'Ελληνικά кириллица 中文 日本語', '👨\u200D💻 and 👩🏽\u200D🔬', '⚠\uFE0F warning', '1\uFE0F\u20E3', 'می\u200Cخواهم', 'क्\u200Dष']) {
    assert.equal(visible(plain), plain, plain);
  }
  // the same joiners between Latin letters only hide a difference
  assert.equal(visible('pay\u200Cpal'), 'pay⟨U+200C⟩pal');
  assert.equal(visible('a\u200Db'), 'a⟨U+200D⟩b');
  assert.equal(visible('a\uFE0F.js'), 'a⟨U+FE0F⟩.js');
});

test('a headline shows its hidden characters, and a cut never leaves half a surrogate pair', () => {
  assert.equal(headline({ prompt: 'Rename src/evil\u202Ests.js please\nsecond line' }), 'Rename src/evil⟨U+202E⟩sts.js please');
  assert.equal(headline({ prompt: 'first line\r\nsecond' }), 'first line', 'a CRLF line ends before its carriage return');
  const cut = headline({ prompt: `${'a'.repeat(8)}😀😀` }, 10);
  assert.equal(cut, `${'a'.repeat(8)}…`);
  assert.ok(!/⟨U\+D/.test(cut));
});
