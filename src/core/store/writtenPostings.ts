/**
 * The postings a write pass wrote of its lexicon segments (lexicon.ts, HeldMerges), kept beside the store while
 * they are few, so the merge at the pass's end takes them from here instead of reading every row of them back: on
 * the corpus that read was a third of the merge's CPU and half of what it cost the run's thread (its statements,
 * and the driver making a row and a Buffer of each of ~46,000 postings rows). A segment is remembered only once the
 * transaction that wrote it has committed (a rolled back segment's id is given again); a merge reads the store for
 * any segment not remembered. Past MAX_BYTES of postings or MAX_TERMS rows (a large history) the pass remembers
 * nothing more, and its merges read the store as before.
 */
export class WrittenPostings {
  static readonly MAX_BYTES = 8 * 1024 * 1024;
  static readonly MAX_TERMS = 100_000;
  private readonly segments = new Map<number, SegmentPostings>();
  /** Written in the transaction under way, not committed yet. */
  private pending: Array<[number, SegmentPostings]> = [];
  private bytes = 0;
  private terms = 0;
  private full = false;

  /** Where segment `id`'s postings go as they are written; undefined once the pass holds too many. */
  record(id: number): SegmentPostings | undefined {
    if (this.full) return undefined;
    const segment = new SegmentPostings(this);
    this.pending.push([id, segment]);
    return segment;
  }

  /** The transaction that wrote the pending segments committed: they are remembered. */
  committed(): void {
    for (const [id, segment] of this.pending) if (!this.full) this.segments.set(id, segment);
    this.pending = [];
  }

  /** The transaction under way rolled back: what it wrote is forgotten. */
  rolledBack(): void {
    this.pending = [];
  }

  /** The segments' postings when every one of `ids` is remembered; undefined when one is not. */
  all(ids: readonly number[]): SegmentPostings[] | undefined {
    const found = ids.map((id) => this.segments.get(id));
    return found.every((s) => s !== undefined) ? (found as SegmentPostings[]) : undefined;
  }

  /** Segments merged into another: their postings are not needed any more. */
  forget(ids: readonly number[]): void {
    for (const id of ids) this.segments.delete(id);
  }

  /** @internal a segment's piece was added. */
  added(bytes: number, terms: number): void {
    this.bytes += bytes;
    this.terms += terms;
    if (this.bytes > WrittenPostings.MAX_BYTES || this.terms > WrittenPostings.MAX_TERMS) {
      this.full = true;
      this.segments.clear();
      this.pending = [];
    }
  }
}

/** One segment's postings as written, piece by piece (a statement each): each term with its chunk's place. */
export class SegmentPostings {
  private readonly pieces: Array<{ readonly terms: readonly string[]; readonly bytes: Uint8Array; readonly places: Int32Array }> = [];

  constructor(private readonly owner: WrittenPostings) {}

  /**
   * One piece as written: `terms`, `places` (each term's chunk: offset from 0 and length, flat) and the piece's
   * bytes, copied (the writer's buffer is reused).
   */
  add(terms: readonly string[], places: Int32Array, bytes: Uint8Array): void {
    this.pieces.push({ terms, bytes: bytes.slice(), places });
    this.owner.added(bytes.length, terms.length);
  }

  /** The pieces as written (at most ~1 MB of postings each), each term with its chunk's place in the bytes. */
  get written(): ReadonlyArray<{ readonly terms: readonly string[]; readonly bytes: Uint8Array; readonly places: Int32Array }> {
    return this.pieces;
  }
}
