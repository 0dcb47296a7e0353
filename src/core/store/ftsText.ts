import { lineLabel } from '../render';
import { searchableText } from '../words';

/**
 * The searchable text of one exchange (the lexicon's, lexicon.ts; the prompt is also `exchanges_fts`'s one
 * column, for near copies): what people said and what the tools did, without
 * the rendering's own words. The role labels of `render.ts` (`User:`, `Assistant:`, `[tool] Name`,
 * `[result]`, `[error]`, `[context]`) and its truncation markers (`… [N more chars]`) are in every exchange:
 * indexed, a query with "user", "result" or "more" would match them all. Columns:
 * - `prompt`: the human prompt;
 * - `said`: the human's and the assistant's text (the prompt again: it is the best evidence, as before);
 * - `tools`: tool inputs (path, command, pattern), tool output and context no human wrote.
 * Text goes through words.searchableText (apostrophes, Chinese/Japanese/Thai word segmentation).
 * Computed from the stored verbatim alone, so the index can be rebuilt without the transcripts.
 */
export interface FtsFields {
  readonly prompt: string;
  readonly said: string;
  readonly tools: string;
}

/** A tool line's label is followed by the tool's name (`[tool] Read path`): the rendering's word too. */
const TOOL_NAME = /^\S+ ?/;
const TRUNCATED = /… \[\d+ more chars\]/g;

export function ftsFields(prompt: string, verbatim: string): FtsFields {
  const said: string[] = [];
  const tools: string[] = [];
  let into = said;
  for (const line of verbatim.split('\n')) {
    const label = lineLabel(line);
    if (!label) {
      into.push(line);
      continue;
    }
    into = label.role === 'user' || label.role === 'assistant' ? said : tools;
    const rest = line.slice(label.length);
    into.push(label.role === 'tool' ? rest.replace(TOOL_NAME, '') : rest);
  }
  return {
    prompt: searchableText(prompt),
    said: searchableText(said.join('\n').replace(TRUNCATED, ' ')),
    tools: searchableText(tools.join('\n').replace(TRUNCATED, ' ')),
  };
}
