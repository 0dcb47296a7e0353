import { cyrillicStem, isCyrillicWord } from './cyrillic';
import { detached, memoize } from './memo';
import { isEnglishWord, porterStem } from './porter';
import { isAsciiWordCode, wordEnd } from './words';

/**
 * The terms of the lexicon (store/lexicon.ts), BM25's index over what people said: one function for the
 * text indexed and for the words of a query, so the two always agree. A word is a run of letters, digits and
 * marks (as search/terms.ts cuts a query) of text already made searchable (words.searchableText: apostrophes,
 * unspaced scripts cut into words), lower-cased, Latin accents removed (`código` is `codigo`, as FTS5's
 * unicode61 folds them), English words reduced to their porter stem (`tests`, `testing` -> `test`, as FTS5's
 * porter tokenizer does) and Cyrillic words to their Snowball stem (cyrillic.ts: `файлам` -> `файл`; `й` is a
 * letter there, not an accented `и`). Words longer than MAX_TERM_LENGTH are base64, hashes or minified code: no query holds
 * one (terms.ts drops them), so they are not indexed.
 */
export const MAX_TERM_LENGTH = 64;

/** One word character at lastIndex, a surrogate pair whole: where a word starts outside ASCII. */
const WORD_CHAR_AT = /[\p{L}\p{N}\p{M}]/uy;
const HAS_LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;
/** Combining diacritical marks: what a Latin letter with an accent leaves beside its base letter in NFD. */
const DIACRITIC = /[\u0300-\u036f]/;
const DIACRITICS = /[\u0300-\u036f]/g;
const ASCII = /^[\x00-\x7f]*$/;

/**
 * The lexicon's term for one lower-case word (a query term, or a word of indexed text); remembered: a transcript
 * repeats its words, and indexing them is most of the work.
 */
export const indexTerm: (word: string) => string = memoize(termOf, 50_000);

function termOf(word: string): string {
  let folded = word;
  if (!ASCII.test(word)) {
    if (isCyrillicWord(word)) return cyrillicStem(word);
    const nfd = word.normalize('NFD');
    if (DIACRITIC.test(nfd)) folded = nfd.replace(DIACRITICS, '').normalize('NFC');
  }
  if (!HAS_LETTER_OR_DIGIT.test(folded)) return '';
  return isEnglishWord(folded) ? porterStem(folded) : folded;
}

/**
 * The lexicon's document of searchable text (indexText.ts, TermCounts): its length in words, its distinct terms
 * in the order of their first word, each term's count. Several texts (an exchange's fields) make one document; a
 * word over MAX_TERM_LENGTH counts for the length but is no term. The words are runs of letters, digits and marks
 * (`/[\p{L}\p{N}\p{M}]+/gu` on the lower-cased text), found by their character codes (a regular expression only
 * where a word starts or goes on outside ASCII) and looked up in place in this thread's table of words
 * (WordTable), which knows each word's term: a transcript repeats its words, and a string cut out and two map
 * lookups for every occurrence, then a lookup of each distinct word's term and a map of the terms, were most of an
 * index worker's time here.
 */
export function indexTermCounts(texts: string | readonly string[]): { words: number; terms: string; counts: Int32Array } {
  const table = wordTable.begin();
  for (const text of typeof texts === 'string' ? [texts] : texts) countWords(text.toLowerCase(), table);
  return table.document();
}

/** Counts each word of lower-case text into the table's count being taken, in the order of their first occurrence. */
function countWords(lower: string, table: WordTable): void {
  for (let i = 0; i < lower.length; ) {
    const code = lower.charCodeAt(i);
    if (code < 128) {
      if (!isAsciiWordCode(code)) {
        i++;
        continue;
      }
    } else if (!startsWord(lower, i)) {
      i++;
      continue;
    }
    // FNV-1a over the word's code units, hashed as the word is read; where it goes on outside ASCII, the rest of it
    // is found by the pattern (wordEnd) and hashed after
    let h = 0x811c9dc5;
    let end = i;
    for (; end < lower.length; end++) {
      const c = lower.charCodeAt(end);
      if (c >= 128 || !isAsciiWordCode(c)) break;
      h = Math.imul(h ^ c, 0x01000193);
    }
    if (end < lower.length && lower.charCodeAt(end) >= 128) {
      const rest = Math.max(end === i ? i + 1 : end, wordEnd(lower, end)); // one character at least: never loop
      for (; end < rest; end++) h = Math.imul(h ^ lower.charCodeAt(end), 0x01000193);
    }
    table.add(lower, i, end, h);
    i = end;
  }
}

/**
 * The words this thread has counted, each found by its characters in place (its hash, open addressing), with its
 * term (each distinct term numbered too); and the count being taken: each word's occurrences in the texts of one
 * call, in the order of their first occurrence. A word is cut out of its text (and copied: memo.ts, `detached`),
 * and made a term, only the first time the thread sees it. Bounded: past MAX_WORDS the table starts over before a
 * count.
 */
class WordTable {
  private static readonly MAX_WORDS = 50_000;
  /**
   * The table and its arrays start as small as they can: they grow (grown, rehash) at the first words a thread
   * counts, before V8 optimises the count, so the optimised count knows those paths. Started at 4,096 slots and
   * 1,024 words, they first grew once the count was optimised (its inlined `insert` had never run them), which threw
   * the optimised code away twice in each index worker (`--trace-deopt`: "Insufficient type feedback"), and the
   * worker counted in slower code until it was compiled again.
   */
  private slots = new Int32Array(INITIAL_SLOTS); // slot -> word id + 1 (0: empty)
  private words: string[] = [];
  private hashes: number[] = [];
  /** Each word's term id: NOT_A_TERM for an overlong word (a word, not a term), NO_WORD for marks alone. */
  private termIds: number[] = [];
  private terms: string[] = [];
  private termIdOf = new Map<string, number>();
  /** The count being taken: occurrences by word id, valid where `stamp` is the count's. */
  private count = new Int32Array(1);
  private stamp = new Int32Array(1);
  private termCount = new Int32Array(1);
  private termStamp = new Int32Array(1);
  private current = 0;
  /** The word ids counted, in the order of their first occurrence. */
  private order: number[] = [];

  /** Starts a count (and the table over, when it holds too many words). */
  begin(): this {
    if (this.words.length >= WordTable.MAX_WORDS) {
      this.slots = new Int32Array(INITIAL_SLOTS);
      this.words = [];
      this.hashes = [];
      this.termIds = [];
      this.terms = [];
      this.termIdOf = new Map();
      this.stamp.fill(0);
      this.termStamp.fill(0);
    }
    this.order = [];
    this.current++;
    return this;
  }

  /** Counts one occurrence of the word text[from, to), whose hash is `h`. */
  add(text: string, from: number, to: number, h: number): void {
    const length = to - from;
    const mask = this.slots.length - 1;
    let slot = h & mask;
    let id = -1;
    for (let entry = this.slots[slot]! - 1; entry >= 0; entry = this.slots[slot]! - 1) {
      const word = this.words[entry]!;
      if (this.hashes[entry] === h && word.length === length && text.startsWith(word, from)) {
        id = entry;
        break;
      }
      slot = (slot + 1) & mask;
    }
    if (id < 0) id = this.insert(detached(text.slice(from, to)), h, slot);
    if (this.stamp[id] === this.current) this.count[id]!++;
    else {
      this.stamp[id] = this.current;
      this.count[id] = 1;
      this.order.push(id);
    }
  }

  /** The count taken: its words (overlong ones included, marks alone not), its terms in order and their counts. */
  document(): { words: number; terms: string; counts: Int32Array } {
    let words = 0;
    const termOrder: number[] = [];
    for (const id of this.order) {
      const n = this.count[id]!;
      const term = this.termIds[id]!;
      if (term === NO_WORD) continue;
      words += n;
      if (term === NOT_A_TERM) continue;
      if (this.termStamp[term] === this.current) this.termCount[term]! += n;
      else {
        this.termStamp[term] = this.current;
        this.termCount[term] = n;
        termOrder.push(term);
      }
    }
    const terms = new Array<string>(termOrder.length);
    const counts = new Int32Array(termOrder.length);
    for (const [i, term] of termOrder.entries()) {
      terms[i] = this.terms[term]!;
      counts[i] = this.termCount[term]!;
    }
    return { words, terms: terms.join(' '), counts };
  }

  private insert(word: string, h: number, slot: number): number {
    const id = this.words.length;
    this.words.push(word);
    this.hashes.push(h);
    this.termIds.push(this.termId(word));
    if (id >= this.count.length) {
      this.count = grown(this.count);
      this.stamp = grown(this.stamp);
    }
    this.slots[slot] = id + 1;
    // at most half full
    if (this.words.length * 2 > this.slots.length) this.rehash(this.slots.length * 2);
    return id;
  }

  private termId(word: string): number {
    if (word.length > MAX_TERM_LENGTH) return NOT_A_TERM;
    const term = indexTerm(word);
    if (term === '') return NO_WORD;
    let id = this.termIdOf.get(term);
    if (id === undefined) {
      id = this.terms.push(term) - 1;
      this.termIdOf.set(term, id);
      if (id >= this.termCount.length) {
        this.termCount = grown(this.termCount);
        this.termStamp = grown(this.termStamp);
      }
    }
    return id;
  }

  private rehash(size: number): void {
    this.slots = new Int32Array(size);
    const mask = size - 1;
    for (let id = 0; id < this.words.length; id++) {
      let slot = this.hashes[id]! & mask;
      while (this.slots[slot] !== 0) slot = (slot + 1) & mask;
      this.slots[slot] = id + 1;
    }
  }
}

const INITIAL_SLOTS = 2;
const NOT_A_TERM = -1;
const NO_WORD = -2;

function grown(a: Int32Array): Int32Array<ArrayBuffer> {
  const out = new Int32Array(a.length * 2);
  out.set(a);
  return out;
}

const wordTable = new WordTable();

function startsWord(text: string, i: number): boolean {
  WORD_CHAR_AT.lastIndex = i;
  return WORD_CHAR_AT.test(text);
}
