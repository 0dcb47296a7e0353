import { WARM_UP_QUERIES } from './warmUpQueries';
import { WarmUpTurns } from './warmUpTurns';

/**
 * A warm-up's searches run only after real work has left the process idle this long (an agent asks again seconds
 * after an answer, a client asking in a batch within a few ms, or ~100 on a loaded machine: at 50 the bench's
 * back-to-back calls met warm-up searches, +2-3 ms of CPU a call), and stop after this many calls (they compiled the
 * same code).
 */
export const WARM_UP_QUIET_MS = 200;
export const WARM_UP_ENOUGH_CALLS = 9;
/**
 * The warm-up also asks for what the newest exchanges of the store were about, this many of them (warmUp). Searches
 * new to the process are what compile a new query's path (reading and lower-casing texts not read before, their
 * snippets, counting pieces not counted before): after 25 (16 of these), a fresh server's first 10 new calls still
 * took ~20 ms of CPU each, after ~100 ~8, as its later calls; the 25 asked four times over gained nothing (issue 42,
 * docs/search-log.md, twenty-fifth pass).
 */
export const WARM_UP_OWN_QUERIES = 96;
/** Words of such a query: the start of its exchange's prompt, as an agent would ask about it. */
const WARM_UP_QUERY_WORDS = 8;

/** The turns a front end's warm-up takes (WarmUpTurns), with the quiet time and the number of calls above. */
export function warmUpTurns(): WarmUpTurns {
  return new WarmUpTurns(WARM_UP_ENOUGH_CALLS, WARM_UP_QUIET_MS);
}

/**
 * What a warm-up asks: the searcher's warm-up queries, then the starts of the prompts of the store's newest exchanges
 * (what an agent in this workspace is likely to ask about next), each once (a search asked again takes the kept
 * paths, not a new query's), none empty.
 */
export function warmUpTexts(newestPrompts: readonly string[]): string[] {
  return [...new Set([...WARM_UP_QUERIES, ...newestPrompts.map(promptStart)])].filter((t) => t.length > 0);
}

/**
 * A front end's warm-up (the MCP server's, the extension host's language-model tools'): `search` run on warmUpTexts,
 * through the front end's own path (the search, redaction, snippets, the answer's text), results unused. A fresh
 * process's first calls run in V8's interpreter and read every hit's text for the first time: 21.5-23.5 ms of CPU
 * each for the first 20 new queries against 9-11 after (issue 42, docs/benchmarks-log.md). Each search runs only when
 * `turns` gives it one: no real work under way, none ended for WARM_UP_QUIET_MS, fewer than WARM_UP_ENOUGH_CALLS
 * calls so far, the warm-up not stopped (WarmUpTurns.stop); a call meets at most the one search already running.
 * Returns how many searches ran; a failed search is passed over (the next call meets the failure again, and reports it).
 */
export async function warmUp(
  turns: WarmUpTurns,
  newestPrompts: (limit: number) => Promise<readonly string[]>,
  search: (text: string) => Promise<unknown>,
): Promise<number> {
  if (!(await turns.next())) return 0;
  const texts = warmUpTexts(await newestPrompts(WARM_UP_OWN_QUERIES).catch(() => []));
  let ran = 0;
  for (const [i, text] of texts.entries()) {
    if (i > 0 && !(await turns.next())) break;
    await search(text).catch(() => undefined);
    ran++;
  }
  return ran;
}

/** The first words of what an exchange was asked. */
function promptStart(prompt: string): string {
  return prompt.split(/\s+/u).filter(Boolean).slice(0, WARM_UP_QUERY_WORDS).join(' ');
}
