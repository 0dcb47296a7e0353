/**
 * What a searcher read of the store by row number (an exchange's row, a candidate's place), kept until the store
 * changes: the same exchanges come back search after search. At most `max` values: when full, it starts over, a
 * bound at no bookkeeping cost per search. Values are shared by every search that reads them: read-only.
 */
export class KeptUntilChange<T> {
  private readonly kept = new Map<number, T>();
  /** Counts the store's changes: a value read before one is not kept. */
  generation = 0;

  constructor(private readonly max: number) {}

  get(n: number): T | undefined {
    return this.kept.get(n);
  }

  /** Keeps `value` of row `n`, read since the store's change `generation`. */
  keep(n: number, value: T, generation: number): void {
    if (generation !== this.generation) return;
    if (this.kept.size >= this.max) this.kept.clear();
    this.kept.set(n, value);
  }

  /** The store changed: a value kept may not be as it is now (or be another exchange's). */
  storeChanged(): void {
    this.kept.clear();
    this.generation++;
  }
}
