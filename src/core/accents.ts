/**
 * Accents as the index folds them (indexTerms.ts: a word outside Cyrillic loses its combining marks, `código` is
 * the term `codigo`), for the searches that read texts themselves: proximity and snippets. Without it a query typed
 * without accents found its exchange by the index and then matched none of its words in the text (no proximity
 * pair, no marked word, a lower confidence), and an accented query the same against text typed without them.
 *
 * Character by character, each precomposed Latin or Greek letter to its base letter, so the text keeps its length
 * and offsets found in the folded text mark the original. A letter written as base + combining mark (NFD) keeps its
 * mark; Cyrillic letters are not folded (`й` is its own letter there; cyrillic.ts).
 */
const FOLDABLE = /[\u00c0-\u024f\u0370-\u03ff\u1e00-\u1fff]/;
const FOLDABLE_ALL = /[\u00c0-\u024f\u0370-\u03ff\u1e00-\u1fff]/g;
const DIACRITICS = /[\u0300-\u036f]/g;
const folded = new Map<string, string>();

/** `text` with its accented Latin and Greek letters as their base letters; the same length. */
export function foldAccents(text: string): string {
  return FOLDABLE.test(text) ? text.replace(FOLDABLE_ALL, foldLetter) : text;
}

function foldLetter(letter: string): string {
  let base = folded.get(letter);
  if (base === undefined) {
    const stripped = letter.normalize('NFD').replace(DIACRITICS, '').normalize('NFC');
    base = stripped.length === 1 ? stripped : letter;
    folded.set(letter, base);
  }
  return base;
}
