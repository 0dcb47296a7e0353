import { memoize } from './memo';

// The package's types are written for ES modules only; its CommonJS builds are what this extension loads, on the
// first Cyrillic word (most stores have none, and every process that searches loads this module at start).
type Stemmer = { readonly stemmer: (word: string) => string };
let stemmers: { readonly russian: Stemmer['stemmer']; readonly ukrainian: Stemmer['stemmer'] } | undefined;
const loadStemmers = () =>
  (stemmers ??= {
    russian: (require('@orama/stemmers/russian') as Stemmer).stemmer,
    ukrainian: (require('@orama/stemmers/ukrainian') as Stemmer).stemmer,
  });

/**
 * Stems of Cyrillic words, for the lexicon (indexTerms.ts) and for what a search marks and counts as near
 * (snippet.ts, proximity.ts): Russian and Ukrainian inflect every noun, verb and adjective, so a memory phrased
 * `сама запросила файлы` must find `сам запроси доступ к файлам`. Snowball's Russian stemmer (`запросила`,
 * `запроси` -> `запрос`; `файлы`, `файлам` -> `файл`), and the Ukrainian one for a word with a letter Russian has
 * not (і, ї, є, ґ: `файлів` -> `файл`); the script tells no more than that, and the two share most endings. Both
 * only cut endings, so a word begins with its stem once `ё` is written `е` (as Snowball does, and as people type).
 */

const CYRILLIC_WORD = /^\p{Script=Cyrillic}+$/u;

/**
 * The code points of the Cyrillic script as ranges [from, to): Script=Cyrillic, and inside them a few code points of
 * no script or another (U+0485-0486, inherited marks; unassigned ones): what asks it needs no more than a superset.
 */
export const CYRILLIC_RANGES: ReadonlyArray<readonly [number, number]> = [
  [0x400, 0x530],
  [0x1c80, 0x1c8b],
  [0x1d2b, 0x1d2c],
  [0x1d78, 0x1d79],
  [0x2de0, 0x2e00],
  [0xa640, 0xa6a0],
  [0xfe2e, 0xfe30],
  [0x1e030, 0x1e090],
];
const CYRILLIC_CHAR = new RegExp(`[${CYRILLIC_RANGES.map(([from, to]) => `\\u{${from.toString(16)}}-\\u{${(to - 1).toString(16)}}`).join('')}]`, 'u');
const UKRAINIAN_LETTER = /[іїєґ]/;
const YO = /ё/g;

/** Whether `text` holds a character of CYRILLIC_RANGES anywhere: only then can it hold a Cyrillic word. */
export function hasCyrillicLetter(text: string): boolean {
  return CYRILLIC_CHAR.test(text);
}

/** Whether `word` (lower-case) is a Cyrillic word: every character a Cyrillic letter (or mark). */
export function isCyrillicWord(word: string): boolean {
  return CYRILLIC_WORD.test(word);
}

/** `ё` as `е` (the same length: offsets in a text stay where they were). */
export function foldYo(text: string): string {
  return text.includes('ё') ? text.replace(YO, 'е') : text;
}

/** The stem of a lower-case Cyrillic word (`запросила` -> `запрос`); remembered, as the porter stems are. */
export const cyrillicStem: (word: string) => string = memoize(stemOf, 20_000);

function stemOf(word: string): string {
  const folded = foldYo(word);
  const { russian, ukrainian } = loadStemmers();
  return UKRAINIAN_LETTER.test(folded) ? ukrainian(folded) : russian(folded);
}
