/**
 * Closing offers (issue 42). An agent often ends its answer by proposing the next piece of work: "If you want, I
 * can add a `research` subcommand…", "Do you want me to implement the two-stage flow now?", "Next steps: …". The
 * user takes it up in the next request ("yes", "whatever works best"), and the exchange after it does the work. A
 * memory is of what was done ("adding a research subcommand to verify search keys"), so the words of an offer are
 * no evidence that this exchange did it; BM25 counts them all the same, and the exchange that offered the work
 * ranked above the one that did it (2026-11-30, docs/search-log.md, "Closing offers").
 *
 * An offer is found in an exchange's proximity form (lower-cased, role labels out, accents folded: proximity.ts):
 * it begins where a line or a sentence begins with one of the ways an answer proposes more work, within the
 * form's last OFFER_TAIL characters, and runs to the end. A form cut at PROXIMITY_CHARS has lost its end and is
 * taken to have no offer.
 */

/** An answer's closing offer begins this close to the end of the exchange (about 250 words). */
export const OFFER_TAIL = 1500;

/**
 * The ways an answer proposes more work, at the start of a line or a sentence (after a list mark or bold):
 * "if you want / would like / 'd like / like / prefer, I can / could / will / 'll" (not "if you want a different
 * name: …", an instruction to the user), "(do / would) you want me to", "would you like", "want me
 * to", "shall I", "should I", "I can also", "I could also", "next step(s)", "let me know if you want / would like".
 * Not "what I can do", which as often answers the question asked (chosen before the held-out folds were scored:
 * docs/search-log.md).
 */
const OFFER =
  /(?:^|\n|[.!?:]\s)[ \t]*(?:[-*#>]+[ \t]*)?(?:\*\*)?(?:if you(?: want| would like|['\u2019]?d like| like| prefer)[^\n.?!]{0,40}?\bi (?:can|could|will|['\u2019]ll)\b|(?:do |would )?you want me to|would you like|want me to|shall i\b|should i\b|i can also|i could also|next steps?\b|let me know if you(?: want| would like|['\u2019]?d like))/g;

/**
 * Where the closing offer of a proximity form begins (the offset of the line or sentence that opens it), or -1
 * when it has none; `cut`: the form is the head of a longer text (its end, where an offer would be, is not in it).
 */
export function offerStart(form: string, cut: boolean): number {
  if (cut) return -1;
  OFFER.lastIndex = Math.max(0, form.length - OFFER_TAIL);
  const m = OFFER.exec(form);
  OFFER.lastIndex = 0;
  return m ? m.index : -1;
}
