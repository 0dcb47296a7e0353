/**
 * Where one text's words were found, by what was looked for (a snippet's wanted word, a proximity term): a list of
 * start and end offsets, flat. Kept with the text (RecentTexts), so a word a later search looks for again in the
 * same text is not looked for again: a search's words come back in the next ones (a query typed word by word, an
 * agent asking again in other words), and the snippets and proximity's scans of the candidates' texts were ~1.4 ms
 * of a search's ~3.5 at 1,518 exchanges (docs/search-log.md, seventeenth pass).
 */
export class FoundPlaces {
  private readonly found = new Map<string, readonly number[]>();
  private size = 0;

  /** `grew`: told how many numbers each new list adds (its owner counts them against its budget). */
  constructor(private readonly grew: (numbers: number) => void = () => undefined) {}

  /** The places found for `key`, found now by `find` when not known. */
  of(key: string, find: () => number[]): readonly number[] {
    let places = this.found.get(key);
    if (!places) {
      places = find();
      this.found.set(key, places);
      this.size += places.length + 1;
      this.grew(places.length + 1);
    }
    return places;
  }

  /** The numbers kept, plus one a list (what the owner's budget counts). */
  get numbers(): number {
    return this.size;
  }
}
