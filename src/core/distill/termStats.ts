/**
 * Document frequencies over the store's verbatim text, for IDF ranking in the offline distiller. Built in
 * one pass by the distill stage (a few hundred ms for a store of thousands of exchanges) with the same
 * tokeniser the distiller uses, so every candidate term is looked up exactly as it was counted — the
 * verbatim FTS index stems with Porter, which a lookup from here could not reproduce.
 */

/** Word tokens: letters, digits and `_` of any script, lower-cased (`retry_timeout`, `ошибка`, `v2`). */
const WORD_RE = /[\p{L}\p{N}_]+/gu;

export function words(text: string): string[] {
  return text.toLowerCase().match(WORD_RE) ?? [];
}

export class TermStats {
  private readonly df = new Map<string, number>();
  private readonly idfCache = new Map<string, number>();
  private docs = 0;

  get documents(): number {
    return this.docs;
  }

  addDocument(text: string): void {
    this.docs++;
    this.idfCache.clear();
    for (const w of new Set(words(text))) this.df.set(w, (this.df.get(w) ?? 0) + 1);
  }

  /** `term` lower-cased, as `words` gives it. */
  documentFrequency(term: string): number {
    return this.df.get(term) ?? 0;
  }

  /** Smoothed IDF of a lower-cased term, ≥ 1; an unseen term gets the highest value. */
  idf(term: string): number {
    let v = this.idfCache.get(term);
    if (v === undefined) {
      v = Math.log((this.docs + 1) / (this.documentFrequency(term) + 1)) + 1;
      this.idfCache.set(term, v);
    }
    return v;
  }
}
