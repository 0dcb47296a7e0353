/**
 * Transcript text shown as the characters it holds. Characters that draw nothing or change how the text
 * around them is drawn (bidirectional controls, zero-width and other default-ignorable characters, C0 and C1
 * controls, line and paragraph separators, lone surrogates) are written as `⟨U+202E⟩`: a file touched named
 * `src/evil\u202Ests.js` reads `src/evil⟨U+202E⟩sts.js`, never `src/evilsj.sts`. The one rule for every
 * surface that shows transcript text: labels, trees, hovers, lenses, the viewer, the recall panel, the raw view.
 */

/** Characters that are drawn as nothing, or that reorder, join or break the text around them. */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{Default_Ignorable_Code_Point}]/u;
const HIDDEN_IN_LABEL = new RegExp(HIDDEN.source, 'gu');
/** Multi-line text keeps its newlines and tabs (a carriage return only before a newline). */
const HIDDEN_IN_TEXT = new RegExp(`(?![\\t\\n]|\\r\\n)${HIDDEN.source}`, 'gu');

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
 * tabs are escaped too; `{ lines: true }` keeps them, for text shown as several lines. Joiners that make a
 * character what it is stay: an emoji's zero-width joiner and presentation selector (👨‍💻, ⚠️), and the joiners
 * of scripts that need them (Persian, Indic) between two of their letters.
 */
export function visible(text: string, options: { readonly lines?: boolean } = {}): string {
  if (!HIDDEN.test(text)) return text;
  return text.replace(options.lines ? HIDDEN_IN_TEXT : HIDDEN_IN_LABEL, (ch: string, at: number) => (drawnAsPartOf(text, at, ch) ? ch : escaped(ch)));
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
