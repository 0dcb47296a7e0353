import { redact } from './distill/redact';
import { memoize } from './memo';
import type { DistilledView, FileTouch, Hit, HitRoom } from './model';
import type { ExchangeListing } from './store/browse';
import type { StoredExchange } from './store/rows';

/**
 * Hits, listings and exchanges as they leave the store for another program (the MCP server unless --no-redact,
 * the language-model tools): every text a reader gets, with its secrets redacted (redact.ts). Whole fields
 * are redacted, before any cut a front end makes, so a cut never leaves a token's prefix that no longer looks
 * like one. A hit's snippet is made from the redacted text by the searcher (SearchQuery.redact), since a
 * window can open inside a key block or just after a password's name.
 */

const optional = (s: string | undefined): string | undefined => (s === undefined ? undefined : redact(s));
const files = (touched: readonly FileTouch[]): FileTouch[] => touched.map((f) => ({ ...f, path: redact(f.path) }));
const room = <R extends HitRoom>(r: R): R => ({ ...r, id: redact(r.id), label: redact(r.label) });

/**
 * `redact` of a hit's short fields (paths, room labels, cores), remembered: the same ones come back search after
 * search, and each call runs every rule (tens of microseconds even for a path). At most 4,000 of at most 400
 * characters: a few MB at worst.
 */
const redactShort = memoize(redact, 4_000);
const SHORT_FIELD = 400;
const redactField = (s: string): string => (s.length <= SHORT_FIELD ? redactShort(s) : redact(s));
const asStored = (s: string): string => s;

/** What an answer shows of a hit, from its row: the only fields it holds, so nothing else can be shown unredacted. */
export interface ShownHit {
  readonly core: string | undefined;
  readonly context: string | undefined;
  /** Only for a hit not distilled: a distilled hit's prompt (often long) is not shown. */
  readonly prompt: string | undefined;
  /** Its first `files` files touched. */
  readonly files: string[];
  /** Its rooms, when asked for (else none). */
  readonly rooms: HitRoom[];
}

/**
 * The fields of hit `h` an answer shows (the MCP server's `search`, the language-model tools' search), each
 * redacted when `redacting`: only those, not every field of every hit. The snippet is not among them: the
 * searcher cuts it from the redacted text when the search asks (SearchQuery.redact).
 */
export function shownHit(h: Hit, shown: { readonly files: number; readonly rooms: boolean }, redacting: boolean): ShownHit {
  const field = redacting ? redactField : asStored;
  return {
    core: h.core === undefined ? undefined : field(h.core),
    context: h.context === undefined ? undefined : field(h.context),
    prompt: h.core === undefined ? field(h.prompt) : undefined,
    files: h.filesTouched.slice(0, shown.files).map((f) => field(f.path)),
    rooms: shown.rooms ? h.rooms.map((r) => ({ id: field(r.id), type: r.type, label: field(r.label) })) : [],
  };
}

export function redactedListing<L extends ExchangeListing>(e: L): L {
  return { ...e, prompt: redact(e.prompt), title: optional(e.title), core: optional(e.core), context: optional(e.context) };
}

export function redactedExchange(e: StoredExchange): StoredExchange {
  return {
    ...e,
    file: redact(e.file),
    prompt: redact(e.prompt),
    title: optional(e.title),
    verbatim: redact(e.verbatim),
    filesTouched: files(e.filesTouched),
    copies: e.copies?.map((c) => ({ ...c, file: redact(c.file) })),
  };
}

export function redactedDistilled(d: DistilledView): DistilledView {
  return {
    ...d,
    exchangeCore: redact(d.exchangeCore),
    specificContext: redact(d.specificContext),
    rooms: d.rooms.map((r) => ({ ...room(r), key: redact(r.key) })),
    facets: d.facets?.map((r) => ({ ...room(r), key: redact(r.key) })),
  };
}
