import { redact } from './distill/redact';
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

export function redactedHit(h: Hit): Hit {
  return {
    ...h,
    file: redact(h.file),
    prompt: redact(h.prompt),
    title: optional(h.title),
    core: optional(h.core),
    context: optional(h.context),
    firstPrompt: optional(h.firstPrompt),
    rooms: h.rooms.map(room),
    filesTouched: files(h.filesTouched),
    copies: h.copies.map((c) => ({ ...c, file: redact(c.file) })),
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
