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
      for (const w of words(p.text.slice(0, PART_CHARS))) entry(w).inCalls++;
      // a call's tool name ("Bash", "TodoWrite") is the agent's, not the exchange's topic: the search terms leave it out
      for (const w of words(p.text.replace(/^\S+\s*/u, '').slice(0, PART_CHARS))) entry(w).inErrorsAndArgs++;
    }
  }
  return uses;
}
