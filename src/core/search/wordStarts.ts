import { isAsciiWordCode, isWordCharBefore } from '../words';

/**
 * Where the words of a lower-cased text begin, chained by their first character, so that a query word is looked
 * for only where a word begins with its first letter. Proximity and snippets looked for each query word with
 * `indexOf` over the whole text: ~9 words in each of 20 texts a query, 1.1 M characters scanned per query on the
 * corpus (docs/search-log.md, sixteenth pass). One pass over the text makes this, and a searcher keeps it with
 * the text (recentTexts.ts).
 *
 * What "a word begins" means is each caller's own, kept exactly: proximity's is a word unit after a code unit
 * that is not one (`isWordUnit`, proximity.ts), snippets' a word unit after a character that is not a word
 * character (`isWordCharBefore`, snippet.ts). They differ only after a letter beyond the BMP.
 */
export class WordStarts {
  private constructor(
    /** Per bucket (of the first two code units: bucketOf), the first word start's link, or -1. */
    private readonly heads: Int32Array,
    /** Per word start k: at 2k its offset, at 2k + 1 the link of the next start of its bucket (text order), or -1. */
    private readonly links: Int32Array,
  ) {}

  /** The word starts of `lower`, by `isWordUnit` of the unit before (`unit`) or `isWordCharBefore` (`character`). */
  static of(lower: string, rule: 'unit' | 'character'): WordStarts {
    const heads = new Int32Array(BUCKETS).fill(-1);
    tails.fill(-1);
    let count = 0;
    let before = false; // whether the unit before is a word unit
    for (let i = 0; i < lower.length; i++) {
      const code = lower.charCodeAt(i);
      const word = code < 128 ? isAsciiWordCode(code) : isWordCode(code);
      // past a non-ASCII unit, snippets look at the whole character before (a surrogate pair is one)
      const begins = word && !(rule === 'unit' || i === 0 || lower.charCodeAt(i - 1) < 128 ? before : isWordCharBefore(lower, i));
      before = word;
      if (!begins) continue;
      if (2 * count + 2 > scratch.length) scratch = grown(scratch);
      const bucket = bucketOf(code, lower.charCodeAt(i + 1));
      scratch[2 * count] = i;
      scratch[2 * count + 1] = -1;
      if (tails[bucket]! < 0) heads[bucket] = count;
      else scratch[2 * tails[bucket]! + 1] = count;
      tails[bucket] = count++;
    }
    return new WordStarts(heads, scratch.slice(0, 2 * count));
  }

  /**
   * The first word start that may begin with `word` (its link; -1: none). `word` is of two units at least and
   * begins with a word unit (findable).
   */
  first(word: string): number {
    return this.heads[bucketOf(word.charCodeAt(0), word.charCodeAt(1))]!;
  }

  /** The next word start after link `k` that may begin with the same word, in text order (-1: none). */
  next(k: number): number {
    return this.links[2 * k + 1]!;
  }

  /** The offset of the word start of link `k`. */
  at(k: number): number {
    return this.links[2 * k]!;
  }

  /** What this keeps, in characters (two bytes each) as RecentTexts counts. */
  get size(): number {
    return this.links.length * 2 + BUCKETS * 2;
  }
}

/**
 * Whether `word` can be looked for through WordStarts: two units at least (a bucket is of a word's first two),
 * the first a word unit (not a letter beyond the BMP).
 */
export function findable(word: string): boolean {
  const code = word.charCodeAt(0);
  return word.length > 1 && (code < 128 ? isAsciiWordCode(code) : isWordCode(code));
}

const BUCKETS = 256;

/** A word start's bucket: of its first two units (the second NaN at the end of the text: 0). */
function bucketOf(first: number, second: number): number {
  return (first + 31 * (second | 0)) & (BUCKETS - 1);
}
const tails = new Int32Array(BUCKETS);
let scratch: Int32Array = new Int32Array(4096);

function grown(a: Int32Array): Int32Array {
  const b = new Int32Array(a.length * 2);
  b.set(a);
  return b;
}

const WORD_CHAR = /[\p{L}\p{N}\p{M}]/u;
/** isWordUnit of a non-ASCII unit, asked once per unit: 0 not asked yet, 1 a word unit, 2 not one. */
const WORD_CODES = new Uint8Array(0x10000);

/** words.isWordUnit of one code unit (a lone surrogate is not a word unit). */
function isWordCode(code: number): boolean {
  let known = WORD_CODES[code]!;
  if (known === 0) WORD_CODES[code] = known = WORD_CHAR.test(String.fromCharCode(code)) ? 1 : 2;
  return known === 1;
}
