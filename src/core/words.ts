/**
 * Text -> the words FTS5 sees, the same way for what is indexed and for what is searched. FTS5's
 * `unicode61` tokenizer cuts at every character that is not a letter, digit or mark, which breaks two kinds
 * of text:
 * - apostrophes: `aren't` would become `aren` + `t`, `I'm` an `i` + `m`. A word's inner apostrophe is
 *   removed (`arent`, `im`, `user's` -> `users`, which porter stems to `user`); a French/Italian elision
 *   (`l'application`, `d'accord`, `qu'il`) keeps the word after it;
 * - scripts written without spaces (Chinese, Japanese, Thai, Lao, Khmer, Myanmar): unicode61 keeps a whole
 *   run as one token, so no query word ever matches inside it. Such runs are cut into words by ICU's word
 *   segmenter (`Intl.Segmenter`, dictionary-based for these scripts) and the words joined by spaces.
 * Korean separates words by spaces but glues particles to them (`데이터베이스에서`): see `hangulQueryWord`.
 */

const APOSTROPHE = /['\u2019]/;
/** French and Italian elisions: one of these letters (or `qu`) alone before an apostrophe. */
// (each pattern starts at its letters or its apostrophe and looks behind from there: a pattern opening with a
// look-behind was tried, a Unicode class each, at every character of the text)
const ELISION = /(?:[cdjlmnst]|qu)['\u2019](?<![\p{L}\p{N}\p{M}](?:[cdjlmnst]|qu)['\u2019])(?=\p{L})/giu;
const INNER_APOSTROPHE = /['\u2019](?<=\p{L}['\u2019])(?=\p{L})/gu;

/** Runs of the scripts written without spaces between words (and the Japanese long-vowel mark). */
const UNSPACED_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}\u30fc\u3005]+/gu;
export const UNSPACED_CHAR = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}\u30fc\u3005]/u;
/**
 * The blocks those scripts are written in, as UTF-16 code units (any surrogate pair stands for a character past the
 * first plane): a superset of UNSPACED_CHAR's first code units, tested. A text without one has no unspaced run;
 * this pattern of plain ranges finds that in a third of the time the Unicode script classes take (most texts).
 */
export const MAYBE_UNSPACED = /[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u19e0-\u19ff\u2e80-\u2fdf\u3000-\u9fff\ua9e0-\ua9ff\uaa60-\uaa7f\uf900-\ufaff\uff00-\uffef\ud800-\udbff]/;
const HANGUL = /^\p{Script=Hangul}+$/u;

let segmenter: Intl.Segmenter | undefined;

/** The word tokens of searchable text as unicode61 cuts them: runs of letters, digits and marks (lower-case first). */
export const WORD_TOKEN = /[\p{L}\p{N}\p{M}]+/gu;

/** `text` as FTS5 should tokenize it: apostrophes resolved, unspaced scripts cut into words. */
export function searchableText(text: string): string {
  let out = APOSTROPHE.test(text) ? text.replace(ELISION, '').replace(INNER_APOSTROPHE, '') : text;
  if (MAYBE_UNSPACED.test(out) && UNSPACED_CHAR.test(out)) out = out.replace(UNSPACED_RUN, segmentRun);
  return out;
}

function segmentRun(run: string): string {
  segmenter ??= new Intl.Segmenter('und', { granularity: 'word' });
  const words: string[] = [];
  for (const s of segmenter.segment(run)) if (s.isWordLike) words.push(s.segment);
  // spaces around the run too: a Latin word glued to it (`Redis缓存`) is a word of its own
  return ` ${words.join(' ')} `;
}

/** Whether a word belongs to a script written without spaces (it can then sit anywhere inside a run). */
export function isUnspacedWord(word: string): boolean {
  return UNSPACED_CHAR.test(word);
}

/**
 * Common Korean particles and endings glued to a noun, longest first. A query word loses one of them
 * (when at least two syllables stay) and then matches any indexed word it begins: `데이터베이스에서`
 * -> prefix `데이터베이스`, which finds `데이터베이스가`, `데이터베이스를`, ...
 */
const HANGUL_PARTICLES = [
  '에서는', '에서도', '으로는', '에게서', '까지는', '에서', '으로', '에게', '까지', '부터', '보다', '처럼', '이나', '이랑',
  '와', '과', '은', '는', '이', '가', '을', '를', '의', '에', '로', '도', '만', '나', '랑',
];

/** For a Hangul query word, the stem to match as a prefix; undefined for any other word. */
export function hangulQueryWord(word: string): string | undefined {
  if (!HANGUL.test(word)) return undefined;
  for (const p of HANGUL_PARTICLES) {
    if (word.length - p.length >= 2 && word.endsWith(p)) return word.slice(0, -p.length);
  }
  return word;
}

/**
 * Word characters (letters, digits, marks: what the index's tokenizer keeps) looked up for ASCII, the most
 * of any transcript, instead of running a Unicode regular expression on each character.
 */
const ASCII_WORD = new Uint8Array(128).map((_, c) => (/[A-Za-z0-9]/.test(String.fromCharCode(c)) ? 1 : 0));
const WORD_CHAR = /[\p{L}\p{N}\p{M}]/u;
const WORD_REST = /[\p{L}\p{N}\p{M}]*/uy;

/** Whether an ASCII code (below 128) is a word character. */
export function isAsciiWordCode(code: number): boolean {
  return ASCII_WORD[code] === 1;
}

/** Whether the code unit at `i` is a word character (a lone surrogate is not). */
export function isWordUnit(text: string, i: number): boolean {
  const code = text.charCodeAt(i);
  return code < 128 ? ASCII_WORD[code] === 1 : WORD_CHAR.test(text[i]!);
}

/** Whether the character ending just before `at` is a word character (a whole surrogate pair counts). */
export function isWordCharBefore(text: string, at: number): boolean {
  if (at === 0) return false;
  const low = text.charCodeAt(at - 1);
  if (low < 128) return ASCII_WORD[low] === 1;
  const ch = low >= 0xdc00 && low <= 0xdfff && at >= 2 ? text.slice(at - 2, at) : text[at - 1]!;
  return WORD_CHAR.test(ch);
}

/** Where the word going on at `i` ends: the first character from `i` that is not a word character. */
export function wordEnd(text: string, i: number): number {
  while (i < text.length) {
    const code = text.charCodeAt(i);
    if (code >= 128) {
      WORD_REST.lastIndex = i;
      return i + WORD_REST.exec(text)![0].length;
    }
    if (ASCII_WORD[code] !== 1) return i;
    i++;
  }
  return i;
}
