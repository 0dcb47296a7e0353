/**
 * ASCII letters and digits from the most frequent to the rarest in the corpus's lower-cased transcripts (`e` 11.4 %
 * of them, `q` and `z` 0.12 %). Any other code unit of a word counts as rarer than all of them.
 */
const BY_FREQUENCY = 'etosairncldpumhgfybwvkx1023546j879zq';
const RANK = new Uint8Array(128);
for (let i = 0; i < BY_FREQUENCY.length; i++) RANK[BY_FREQUENCY.charCodeAt(i)] = BY_FREQUENCY.length - i;
/** Spaces, punctuation: the commonest of all in a text (a word holds none, but a caller's string may). */
const NOT_ALNUM = BY_FREQUENCY.length + 1;

/**
 * Where `word` stands in a text, as `text.indexOf(word, from)` answers, found by its rarest character. V8's indexOf
 * looks for a pattern's first character (memchr) and compares the rest wherever it stands, and each stop costs more
 * than the characters memchr skips: a query word starting with `e`, `t` or `s` stops every 10-15 characters of a
 * transcript. Looked for from its rarest character on (`squash` as `quash`, `q` 0.12 % of the letters), then checked
 * whole, it stops less often: on the candidates' texts of the 81 eval queries, at 1.7 % of the characters the
 * proximity scans read instead of 3.4 % (issue 42; docs/search-log.md, thirtieth pass).
 */
export class RareFirst {
  /** Where in `word` its rarest character is (the first of the rarest). */
  private readonly offset: number;
  /** `word` from its rarest character. */
  private readonly tail: string;

  constructor(readonly word: string) {
    let offset = 0;
    let rank = Infinity;
    for (let i = 0; i < word.length; i++) {
      const code = word.charCodeAt(i);
      const r = code < 128 ? RANK[code] || NOT_ALNUM : 0;
      if (r < rank) {
        rank = r;
        offset = i;
      }
    }
    this.offset = offset;
    this.tail = word.slice(offset);
  }

  /** `text.indexOf(word, from)`: the first place at or after `from` where `word` stands, -1 where none does. */
  in(text: string, from = 0): number {
    const { offset, tail, word } = this;
    if (offset === 0) return text.indexOf(word, from);
    // a place before 0 is looked for from 0, as indexOf does
    for (let at = text.indexOf(tail, Math.max(0, from) + offset); at >= 0; at = text.indexOf(tail, at + 1)) {
      if (text.startsWith(word, at - offset)) return at - offset;
    }
    return -1;
  }
}
