import type { HitRow, ShownRooms } from '../store/hitRows';
import type { SearchReads } from '../store/searchReads';
import type { TextsOf } from './proximity';
import { makeSnippet, type Snippet } from './snippet';

/** What one search asks: its words, how many hits, how many of one conversation, and the exchanges set aside. */
export interface SearchAsk {
  readonly terms: readonly string[];
  readonly limit: number;
  readonly perConversation: number;
  /** Row numbers of the exchanges the user said "not these" about. */
  readonly excluded: ReadonlySet<number>;
}

/**
 * One search's ask and what it has read and made so far, so that nothing is read or made twice: the candidates'
 * conversations its signals happened to read (for the per-conversation cap), the hit rows read (proximity's
 * candidates, nearly always the hits shown), and the snippets made (selective's first hit is explained twice).
 */
export class SearchContext {
  readonly conversations = new Map<number, string>();
  private readonly rows = new Map<number, HitRow>();
  private readonly snippets = new Map<number, Snippet>();

  constructor(
    private readonly reads: SearchReads,
    /** The rooms shown as chips, read once per store change by the searcher. */
    private readonly shownRooms: () => Promise<ShownRooms>,
    readonly ask: SearchAsk,
  ) {}

  /** The hit rows of `ns`: those read already, the others read now (and kept). */
  async rowsOf(ns: readonly number[]): Promise<ReadonlyMap<number, HitRow>> {
    const unread = ns.filter((n) => !this.rows.has(n));
    if (unread.length > 0) for (const [n, row] of await this.reads.hitRows(unread, await this.shownRooms())) this.rows.set(n, row);
    return this.rows;
  }

  /**
   * Proximity's texts: its candidates' whole hit rows, kept. The hits shown are nearly always among them (all 650
   * of the dev queries' at 50K exchanges): one statement and one reading of each text, not two.
   */
  readonly texts: TextsOf = async (ns) => {
    const texts = new Map<number, string>();
    for (const [n, row] of await this.reads.hitRows(ns, await this.shownRooms())) {
      this.rows.set(n, row);
      texts.set(n, row.verbatim);
    }
    return texts;
  };

  /** The snippet of `row` for this search, made once. */
  snippetOf(row: HitRow): Snippet {
    let snippet = this.snippets.get(row.n);
    if (!snippet) this.snippets.set(row.n, (snippet = makeSnippet(row.verbatim, this.ask.terms)));
    return snippet;
  }
}
