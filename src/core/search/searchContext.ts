import type { ExchangeText, HitRow, ShownRooms } from '../store/hitRows';
import type { SearchReads } from '../store/searchReads';
import type { FormsOf, ProximityText } from './proximity';
import { KeptUntilChange } from './keptUntilChange';
import type { RecentTexts } from './recentTexts';
import { makeSnippet, type Snippet } from './snippet';

/** What one search asks: its words, how many hits, how many of one conversation, and the exchanges set aside. */
export interface SearchAsk {
  readonly terms: readonly string[];
  readonly limit: number;
  readonly perConversation: number;
  /** Row numbers of the exchanges the user said "not these" about. */
  readonly excluded: ReadonlySet<number>;
  /** Snippets shown are cut from the redacted text (SearchQuery.redact). */
  readonly redact: boolean;
}

/**
 * One search's ask and what it has read and made so far, so that nothing is read or made twice: the candidates'
 * conversations its signals happened to read (for the per-conversation cap), the exchanges' texts read (proximity's
 * candidates, nearly always the hits shown), the hit rows read (what the hits shown show), and the snippets made
 * (selective's first hit is explained twice).
 */
export class SearchContext {
  readonly conversations = new Map<number, string>();
  /** The continuations among BM25 on verbatim's candidates and the requests they continue (continuation.ts). */
  readonly requests = new Map<number, number>();
  /** The candidates' texts: proximity's, the hits' (ranking looks for copies among these: ranking.ts). */
  private readonly texts = new Map<number, ExchangeText>();
  /** Texts read to weigh evidence only (evidence.ts), kept for when they are asked for as candidates'. */
  private readonly spare = new Map<number, ExchangeText>();
  private readonly rows = new Map<number, HitRow>();
  private readonly snippets = new Map<number, Snippet>();

  constructor(
    private readonly reads: SearchReads,
    /** The texts the searcher's last searches read (until the store changes). */
    private readonly recent: RecentTexts,
    /** The rooms shown as chips, read once per store change by the searcher. */
    private readonly shownRooms: Promise<ShownRooms>,
    readonly ask: SearchAsk,
    /** The hit rows the searcher's last searches read (until the store changes). */
    private readonly keptRows: KeptRows = new KeptRows(),
  ) {}

  /** The candidates' texts, with those of `ns`: read already (or spare, or recent), the others read now. */
  async textsOf(ns: readonly number[]): Promise<ReadonlyMap<number, ExchangeText>> {
    const unread: number[] = [];
    for (const n of ns) {
      if (this.texts.has(n)) continue;
      const known = this.spare.get(n) ?? this.recent.text(n);
      if (known) this.texts.set(n, known);
      else unread.push(n);
    }
    for (const [n, text] of await this.read(unread)) this.texts.set(n, text);
    return this.texts;
  }

  /** The texts of `ns` to weigh evidence by, read now where not read already; not made candidates' texts. */
  async evidenceOf(ns: readonly number[]): Promise<ReadonlyMap<number, ExchangeText>> {
    const out = new Map<number, ExchangeText>();
    const unread: number[] = [];
    for (const n of ns) {
      const text = this.texts.get(n) ?? this.spare.get(n) ?? this.recent.text(n);
      if (text) out.set(n, text);
      else unread.push(n);
    }
    for (const [n, text] of await this.read(unread)) {
      this.spare.set(n, text);
      out.set(n, text);
    }
    return out;
  }

  /** The texts of `ns`, read from the store (and kept as recent). */
  private async read(ns: readonly number[]): Promise<ReadonlyMap<number, ExchangeText>> {
    if (ns.length === 0) return new Map();
    const texts = await this.reads.exchangeTexts(ns);
    for (const [n, text] of texts) this.recent.keep(n, text);
    return texts;
  }

  /** The hit rows of `ns`: those read already (by this search or the searcher's last ones), the others read now (and kept). */
  async rowsOf(ns: readonly number[]): Promise<ReadonlyMap<number, HitRow>> {
    const unread: number[] = [];
    for (const n of ns) {
      if (this.rows.has(n)) continue;
      const kept = this.keptRows.get(n);
      if (kept) this.rows.set(n, kept);
      else unread.push(n);
    }
    if (unread.length > 0) {
      const generation = this.keptRows.generation;
      for (const [n, row] of await this.reads.hitRows(unread, await this.shownRooms)) {
        this.rows.set(n, row);
        this.keptRows.keep(n, row, generation);
      }
    }
    return this.rows;
  }

  /**
   * Proximity's texts, in its form: its candidates' verbatim texts, kept. The hits shown are nearly always among
   * them (all 650 of the dev queries' at 50K exchanges): one reading of each text, not two.
   */
  readonly proximityForms: FormsOf = async (ns) => {
    const texts = await this.textsOf(ns);
    const out = new Map<number, ProximityText>();
    for (const n of ns) {
      const text = texts.get(n);
      if (text) out.set(n, this.recent.proximityForm(n, text.verbatim));
    }
    return out;
  };

  /**
   * The snippet a hit shows: its own, or for an answer that leaves the store, one cut from the redacted text (a
   * window can open inside a key block); what it matched is the stored text's all the same.
   */
  shownSnippet(n: number, text: ExchangeText): string {
    const own = this.snippetOf(n, text.verbatim).text;
    if (!this.ask.redact) return own;
    // most texts hold no secret: their redacted text is the same, and so is its snippet
    const redacted = this.recent.redacted(n, text);
    return redacted === text.verbatim ? own : makeSnippet(redacted, this.ask.terms).text;
  }

  /** The snippet of exchange `n` (of verbatim text `verbatim`) for this search, made once. */
  snippetOf(n: number, verbatim: string): Snippet {
    let snippet = this.snippets.get(n);
    if (!snippet) this.snippets.set(n, (snippet = makeSnippet(verbatim, this.ask.terms, undefined, this.recent.snippetPlaces(n, verbatim))));
    return snippet;
  }
}

/** Hit rows a searcher keeps at most (a row holds its prompt and its conversation's first one: a few KB). */
const MAX_KEPT_ROWS = 2_000;

/**
 * The hit rows a searcher's last searches read, kept until the store changes: what a hit shows of its exchange
 * depends on the store only (and on the rooms shown, read once per change too). Its statement (a row's rooms, files
 * and copies aggregated) was ~0.6 ms of a query asked again's ~4.5 ms of CPU on the corpus.
 */
export class KeptRows extends KeptUntilChange<HitRow> {
  constructor(max = MAX_KEPT_ROWS) {
    super(max);
  }
}
