import type { VerbatimPart } from './verbatimParts';
import { PART_CHARS, words } from './wordRarity';

/**
 * The uses of each word of an exchange, counted once for the headline (headline.ts topicWeights) and the search terms
 * (searchTerms.ts): both count the words of the human's prompt and of the assistant's texts, and each a few more of
 * its own. Each counted them into a map of its own, a lookup per word twice over the same words.
 */
export interface ExchangeWord {
  /** Uses in the prompt and the assistant's texts (the first PART_CHARS of each). */
  said: number;
  /** Uses in tool calls, the tool's name included: the headline's (`uses` = said + inCalls). */
  inCalls: number;
  /** Uses in errors and in tool calls without the tool's name: the search terms' (`n` = said + inErrorsAndArgs). */
  inErrorsAndArgs: number;
  /** Said by the human (in the prompt). */
  human: boolean;
  /** The headline's weight of the word (headline.ts topicWeight), 0 until asked (every weight is ≥ 1). */
  weight: number;
}

export type ExchangeWords = ReadonlyMap<string, ExchangeWord>;

export function exchangeWords(prompt: string, parts: readonly VerbatimPart[]): ExchangeWords {
  const uses = new Map<string, ExchangeWord>();
  // (one lookup a word: its counts kept in place; every entry of one shape)
  const entry = (w: string): ExchangeWord => {
    let known = uses.get(w);
    if (!known) uses.set(w, (known = { said: 0, inCalls: 0, inErrorsAndArgs: 0, human: false, weight: 0 }));
    return known;
  };
  for (const w of words(prompt.slice(0, PART_CHARS))) {
    const e = entry(w);
    e.said++;
    e.human = true;
  }
  for (const p of parts) {
    if (p.kind === 'assistant') for (const w of words(p.text.slice(0, PART_CHARS))) entry(w).said++;
    else if (p.kind === 'error') for (const w of words(p.text.slice(0, PART_CHARS))) entry(w).inErrorsAndArgs++;
    else if (p.kind === 'tool') {
      const all = words(p.text.slice(0, PART_CHARS));
      // a call's tool name ("Bash", "TodoWrite") is the agent's, not the exchange's topic: the search terms leave it out
      const args = p.text.replace(TOOL_NAME_RE, '');
      const named = namedWords(p.text, args);
      if (named >= 0) {
        // the same words, read once: those after the name's are the arguments'
        for (let i = 0; i < all.length; i++) {
          const e = entry(all[i]!);
          e.inCalls++;
          if (i >= named) e.inErrorsAndArgs++;
        }
      } else {
        for (const w of all) entry(w).inCalls++;
        for (const w of words(args.slice(0, PART_CHARS))) entry(w).inErrorsAndArgs++;
      }
    }
  }
  return uses;
}

/** A tool call's first run of non-blanks (its tool's name) and the blanks after it. */
const TOOL_NAME_RE = /^\S+\s*/u;

/**
 * How many of `words(call)` its tool's name holds, when `words(args)` (`args` the call without its name, TOOL_NAME_RE)
 * are the rest of them: the whole call is read (no cut at PART_CHARS between the two) and the name ends at an ASCII
 * blank, which no word takes and across which lower-casing reads no context (a final sigma's); -1 otherwise.
 */
export function namedWords(call: string, args: string): number {
  const cut = call.length - args.length;
  if (call.length > PART_CHARS || cut === 0) return -1;
  const c = call.charCodeAt(cut - 1);
  if (c !== 32 && c !== 9 && c !== 10 && c !== 13 && c !== 11 && c !== 12) return -1;
  return words(call.slice(0, cut)).length;
}
