import { REDACTION_VERSION, redact } from '../distill/redact';
import type { ExchangeText } from '../store/hitRows';
import { type ProximityText, proximityForm, withWordStarts } from './proximity';
import { type SnippetText, snippetText, withSnippetStarts } from './snippet';

/**
 * The most characters kept, texts and what is made of them together (a word start counts two): at most ~40 MB,
 * less for texts of one byte a character. Enough for the candidates of the 81 dev and agents' queries on the
 * corpus (~17 M with what they make once read twice); 4 M held a third of them, so each pass read and made
 * them all again (docs/search-log.md, sixteenth pass).
 */
export const MAX_RECENT_CHARS = 20_000_000;
/** A text longer than this is read again when asked for: it would push out dozens of others. */
const MAX_TEXT_CHARS = 200_000;

interface Recent {
  readonly text: ExchangeText;
  form?: ProximityText;
  /** What snippets read of the text: kept the second time a snippet is made of it (once, nothing is kept). */
  snippet?: SnippetText | 'once';
  /** The verbatim text redacted (the same string when it holds no secret: nothing more is kept). */
  redacted?: string;
}

/**
 * The exchanges' texts a searcher read for its last searches, with their proximity forms, what snippets read of
 * them and their redacted texts (each made once), kept until the store changes. The same exchanges come back search after search: as a query is typed (each prefix is a
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

  /**
   * Proximity's text of exchange `n`'s text `verbatim`: its form made now, or kept from before; the second time
   * it is asked for, with where its words begin (a text read once is scanned: proximity.ts).
   */
  proximityText(n: number, verbatim: string): ProximityText {
    const recent = this.touch(n);
    if (!recent || recent.text.verbatim !== verbatim) return { form: proximityForm(verbatim) };
    const kept = recent.form;
    if (kept?.starts) return kept;
    recent.form = kept ? withWordStarts(kept) : { form: proximityForm(verbatim) };
    this.chars += formChars(recent.form) - (kept ? formChars(kept) : 0);
    this.trim();
    return recent.form;
  }

  /**
   * What snippets read of exchange `n`'s text `verbatim`: made now, or kept from before. The second time it is
   * asked for it is kept, with where its words begin: a text shown once costs no memory.
   */
  snippetText(n: number, verbatim: string): SnippetText {
    const recent = this.touch(n);
    if (!recent || recent.text.verbatim !== verbatim) return snippetText(verbatim);
    const kept = recent.snippet;
    if (kept === undefined) {
      recent.snippet = 'once';
      return snippetText(verbatim);
    }
    if (kept !== 'once') return kept;
    const made = (recent.snippet = withSnippetStarts(snippetText(verbatim)));
    this.chars += snippetChars(made);
    this.trim();
    return made;
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
      this.chars -= recent.text.prompt.length + recent.text.verbatim.length + (recent.form ? formChars(recent.form) : 0) + snippetChars(recent.snippet) + extraChars(recent);
    }
  }
}

/** What a kept proximity text adds: its form and its word starts. */
function formChars(form: ProximityText): number {
  return form.form.length + (form.starts?.size ?? 0);
}

/** What a kept snippet text adds: its lower-cased text and its word starts (the text without marks is nearly always the text itself). */
function snippetChars(text: SnippetText | 'once' | undefined): number {
  return text === undefined || text === 'once' ? 0 : text.lower.length + (text.starts?.size ?? 0);
}

/** What a kept entry's redacted text adds: nothing when it is the verbatim text itself. */
function extraChars(recent: Recent): number {
  return recent.redacted !== undefined && recent.redacted !== recent.text.verbatim ? recent.redacted.length : 0;
}
