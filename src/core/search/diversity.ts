/**
 * Diversity (DESIGN.md "per-conversation dedup"): at most `cap` hits from one conversation, so a long
 * conversation does not fill the list. What the cap leaves out is counted per conversation, so a hit can say
 * "N more in this conversation" (the user's target is often a third match of a conversation already shown).
 */
export interface Capped<T> {
  /** The first `limit` candidates the cap let through, in rank order. */
  readonly kept: T[];
  /** Conversation id -> how many of its candidates the cap left out (all of them, not only up to `limit`). */
  readonly left: Map<string, number>;
}

export function capPerConversation<T extends { readonly n: number }>(ranked: readonly T[], conversation: ReadonlyMap<number, string>, cap: number, limit: number): Capped<T> {
  const seen = new Map<string, number>();
  const left = new Map<string, number>();
  const kept: T[] = [];
  for (const f of ranked) {
    const c = conversation.get(f.n) ?? '';
    const count = seen.get(c) ?? 0;
    if (count >= cap) left.set(c, (left.get(c) ?? 0) + 1);
    else {
      seen.set(c, count + 1);
      if (kept.length < limit) kept.push(f);
    }
  }
  return { kept, left };
}
