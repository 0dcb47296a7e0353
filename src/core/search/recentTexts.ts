import { REDACTION_VERSION, redact } from '../distill/redact';
import type { ExchangeText } from '../store/hitRows';
import { FoundPlaces } from './foundPlaces';
import { type ProximityText, proximityForm } from './proximity';

/**
 * The most characters kept, texts and their proximity forms together: at most ~40 MB (two bytes a character),
 * half that for texts of one byte a character. Enough for the candidates of the 81 dev and agents' queries on the
 * corpus (968 texts, 9.4 M characters with their forms); 4 M held well under half of them, so a search read and
 * made most of them again (docs/search-log.md, sixteenth pass).
 */
export const MAX_RECENT_CHARS = 20_000_000;
/** A text longer than this is read again when asked for: it would push out dozens of others. */
const MAX_TEXT_CHARS = 200_000;
/** What one number of a text's found places (FoundPlaces) counts for against MAX_RECENT_CHARS: eight bytes. */
const PLACE_CHARS = 4;

interface Recent {
  readonly text: ExchangeText;
  form?: ProximityText;
  /** Where snippets of the verbatim text found the query words. */
  snippetPlaces?: FoundPlaces;
  /** The verbatim text redacted (the same string when it holds no secret: nothing more is kept). */
  redacted?: string;
}

/**
 * The exchanges' texts a searcher read for its last searches, with their proximity forms, redacted texts and
 * the places where their words were found (each made once), kept until
 * the store changes. The same exchanges come back search after search: as a query is typed (each prefix is a
 * search), and in a small store (at 1,518 exchanges, half the candidates of the dev queries were an earlier query's
 * too). The least recently used go first.
 */
export class RecentTexts {
  private readonly recent = new Map<number, Recent>();
  /** The exchanges whose verbatim text holds no secret (redacting it changes nothing), kept until the store changes. */
  private readonly clean = new Set<number>();
  private chars = 0;

  constructor(private readonly maxChars = MAX_RECENT_CHARS) {}

  /** The text of exchange `n`, if kept. */
  text(n: number): ExchangeText | undefined {
    return this.touch(n)?.text;
  }

  /** Keeps the text of exchange `n`, just read. */
  keep(n: number, text: ExchangeText): void {
    const size = text.prompt.length + text.verbatim.length;
    if (size > MAX_TEXT_CHARS || this.recent.has(n)) return;
    this.recent.set(n, { text });
    this.chars += size;
    this.trim();
  }

  /** The proximity form of exchange `n`'s text `verbatim` with the places found in it: made now, or kept from before. */
  proximityForm(n: number, verbatim: string): ProximityText {
    const recent = this.touch(n);
    if (!recent || recent.text.verbatim !== verbatim) return { form: proximityForm(verbatim), places: new FoundPlaces() };
    if (recent.form === undefined) {
      recent.form = { form: proximityForm(verbatim), places: this.placesOf(n, recent) };
      this.chars += recent.form.form.length;
      this.trim();
    }
    return recent.form;
  }

  /** Where snippets of exchange `n`'s text `verbatim` found words, kept while the text is (none when it is not). */
  snippetPlaces(n: number, verbatim: string): FoundPlaces | undefined {
    const recent = this.touch(n);
    if (!recent || recent.text.verbatim !== verbatim) return undefined;
    return (recent.snippetPlaces ??= this.placesOf(n, recent));
  }

  /**
   * Exchange `n`'s text with its secrets redacted: the text itself when it was found to hold none when distilled
   * (by these rules: `clean`), else made now, or kept from before. Redacting runs some forty patterns over the
   * whole text (~0.7 ms for a hit's, most of an MCP search's time), for a snippet.
   */
  redacted(n: number, text: ExchangeText): string {
    const { verbatim } = text;
    if (text.clean === REDACTION_VERSION) return verbatim;
    const recent = this.touch(n);
    if (!recent || recent.text.verbatim !== verbatim) return redact(verbatim);
    if (recent.redacted === undefined) {
      // a text with no secret is known as such after its entry goes: the next search that shows it is spared
      const redacted = this.clean.has(n) ? verbatim : redact(verbatim);
      if (redacted === verbatim) {
        recent.redacted = verbatim;
        this.clean.add(n);
      } else {
        recent.redacted = redacted;
        this.chars += redacted.length;
        this.trim();
      }
    }
    return recent.redacted;
  }

  /** The store changed: nothing kept may be as it is now. */
  storeChanged(): void {
    this.recent.clear();
    this.clean.clear();
    this.chars = 0;
  }

  /** Places for entry `recent` of `n`, counted against the budget while it is kept. */
  private placesOf(n: number, recent: Recent): FoundPlaces {
    return new FoundPlaces((numbers) => {
      if (this.recent.get(n) !== recent) return;
      this.chars += numbers * PLACE_CHARS;
      this.trim();
    });
  }

  /** The entry of `n`, made the most recently used. */
  private touch(n: number): Recent | undefined {
    const recent = this.recent.get(n);
    if (recent) {
      this.recent.delete(n);
      this.recent.set(n, recent);
    }
    return recent;
  }

  private trim(): void {
    for (const [n, recent] of this.recent) {
      if (this.chars <= this.maxChars) return;
      this.recent.delete(n);
      this.chars -= recent.text.prompt.length + recent.text.verbatim.length + extraChars(recent);
    }
  }
}

/** What a kept entry adds to its texts: its proximity form, found places, and redacted text (unless the verbatim text itself). */
function extraChars(recent: Recent): number {
  const places = (recent.form?.places.numbers ?? 0) + (recent.snippetPlaces?.numbers ?? 0);
  const redacted = recent.redacted !== undefined && recent.redacted !== recent.text.verbatim ? recent.redacted.length : 0;
  return (recent.form?.form.length ?? 0) + places * PLACE_CHARS + redacted;
}
