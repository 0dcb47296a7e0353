/**
 * Transcript text shown as the characters it holds. Characters that draw nothing or change how the text
 * around them is drawn (bidirectional controls, zero-width and other default-ignorable characters, C0 and C1
 * controls, line and paragraph separators, lone surrogates) are written as `⟨U+202E⟩`: a file touched named
 * `src/evil\u202Ests.js` reads `src/evil⟨U+202E⟩sts.js`, never `src/evilsj.sts`. The one rule for every
 * surface that shows transcript text: labels, trees, hovers, lenses, the viewer, the recall panel, the raw view.
 */

/** Characters that are drawn as nothing, or that reorder, join or break the text around them. */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{Default_Ignorable_Code_Point}]/u;

const ZWNJ = '\u200C';
const ZWJ = '\u200D';
const PICTOGRAPH_BEFORE = /\p{Extended_Pictographic}[\uFE0F\p{Emoji_Modifier}]?$/u;
const PICTOGRAPH_AFTER = /^\p{Extended_Pictographic}/u;
const LETTER_BEFORE = /[\p{L}\p{M}]$/u;
const LETTER_AFTER = /^[\p{L}\p{M}]/u;
/** Scripts that never need a joiner: one between their letters only hides a difference (`pay\u200Cpal`). */
const NO_JOINERS_BEFORE = /[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}\p{Script=Common}]$/u;
const NO_JOINERS_AFTER = /^[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}\p{Script=Common}]/u;

/**
 * `text` with its hidden characters written as `⟨U+XXXX⟩`. A label (the default) is one line: newlines and
 * tabs are escaped too; `{ lines: true }` keeps them (a carriage return only before a newline), for text shown
 * as several lines. Joiners that make a character what it is stay: an emoji's zero-width joiner and
 * presentation selector (👨‍💻, ⚠️), and the joiners of scripts that need them (Persian, Indic) between two of
 * their letters. One pass over the code units with a table: a 30 MB transcript in ~0.3 s, where one regular
 * expression took 1.1 s.
 */
export function visible(text: string, options: { readonly lines?: boolean } = {}): string {
  const units = hiddenUnits();
  let out: string[] | undefined;
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (units[c] === 0) continue;
    let ch = text[i]!;
    if (c >= 0xd800 && c <= 0xdbff) {
      const low = text.charCodeAt(i + 1);
      if (low >= 0xdc00 && low <= 0xdfff) {
        ch = text.slice(i, i + 2);
        if (!HIDDEN.test(ch)) {
          i++;
          continue;
        }
      }
    }
    const kept = options.lines && (c === 0x09 || c === 0x0a || (c === 0x0d && text.charCodeAt(i + 1) === 0x0a));
    if (!kept && !drawnAsPartOf(text, i, ch)) {
      (out ??= []).push(text.slice(from, i), escaped(ch));
      from = i + ch.length;
    }
    i += ch.length - 1;
  }
  return out ? out.join('') + text.slice(from) : text;
}

let unitTable: Uint8Array | undefined;

/**
 * 1 for each UTF-16 code unit that is hidden on its own (a surrogate until it is found paired); built once, by one
 * scan of the pattern over every other unit of the BMP: 65,536 tests of one character each took ~9 ms of an MCP
 * server's first answer, the scan ~5 (fresh processes).
 */
function hiddenUnits(): Uint8Array {
  if (!unitTable) {
    const table = new Uint8Array(0x10000);
    // every unit but the surrogates, in order: each a code point of its own, so the matches are the hidden ones
    const units = new Uint16Array(0x10000 - 0x800);
    for (let i = 0; i < units.length; i++) units[i] = i < 0xd800 ? i : i + 0x800;
    const all = Buffer.from(units.buffer).toString('utf16le');
    const found = new RegExp(HIDDEN.source, 'gu');
    for (let m = found.exec(all); m; m = found.exec(all)) table[m.index < 0xd800 ? m.index : m.index + 0x800] = 1;
    // a surrogate on its own is a code point of its own to the pattern, of \p{Cs}
    table.fill(1, 0xd800, 0xe000);
    unitTable = table;
  }
  return unitTable;
}

/** `⟨U+202E⟩`. */
function escaped(ch: string): string {
  return `⟨U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}⟩`;
}

/** A joiner or presentation selector that is part of how its neighbours are drawn. */
function drawnAsPartOf(text: string, at: number, ch: string): boolean {
  if (ch !== ZWJ && ch !== ZWNJ && ch !== '\uFE0E' && ch !== '\uFE0F') return false;
  const before = text.slice(Math.max(0, at - 4), at);
  const after = text.slice(at + 1, at + 3);
  if (ch === '\uFE0E' || ch === '\uFE0F') return PICTOGRAPH_BEFORE.test(before) || after.startsWith('\u20E3');
  if (ch === ZWJ && PICTOGRAPH_BEFORE.test(before) && PICTOGRAPH_AFTER.test(after)) return true;
  return LETTER_BEFORE.test(before) && LETTER_AFTER.test(after) && !NO_JOINERS_BEFORE.test(before) && !NO_JOINERS_AFTER.test(after);
}
