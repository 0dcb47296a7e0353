import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { RecallError } from '../errors';
import type { DistillInput } from './distiller';
import { redactSecrets, type SecretKind } from './redact';

/** The prompt in use; part of every LLM distiller's cache key. The file is prompts/<version>.md. */
export const PROMPT_VERSION = 'distill-v1';
/** The batch prompt (several exchanges per request), used when a distiller's batchSize is above 1. */
export const BATCH_PROMPT_VERSION = 'distill-batch-v1';

/** The paper cuts an exchange's messages to 4,000 characters (Appendix B). */
export const MAX_MESSAGE_CHARS = 4_000;
/** At most this many files are listed as context for file rooms. */
const MAX_FILES = 20;

/** One exchange's prompt, exactly as it would be sent, with what was redacted and cut on the way. */
export interface BuiltPrompt {
  readonly n: number;
  readonly text: string;
  readonly redacted: Partial<Record<SecretKind, number>>;
  /** Characters of the exchange left out to stay within MAX_MESSAGE_CHARS (0 when nothing was cut). */
  readonly cutChars: number;
}

const templates = new Map<string, string>();

/**
 * The template text of prompts/<version>.md, without its leading comment. The file ships beside dist/
 * (see .vscodeignore) and lies four levels above the compiled test output, so it is looked up from
 * this module's folder upwards rather than at one fixed relative path.
 */
export function loadPromptTemplate(version = PROMPT_VERSION): string {
  const cached = templates.get(version);
  if (cached !== undefined) return cached;
  for (let dir = __dirname, i = 0; i < 6; i++, dir = path.dirname(dir)) {
    const file = path.join(dir, 'prompts', `${version}.md`);
    if (existsSync(file)) {
      const text = readFileSync(file, 'utf8').replace(/^<!--[\s\S]*?-->\s*/, '');
      templates.set(version, text);
      return text;
    }
  }
  throw new RecallError('prompt-missing', `The distillation prompt prompts/${version}.md was not found next to ${__dirname}; reinstall the extension.`);
}

/**
 * Keeps the head (the request and the first steps) and the tail (the final answer, where the outcome
 * usually is) of a long exchange, with a visible marker of what was left out.
 */
export function cutMessages(text: string, max = MAX_MESSAGE_CHARS): { text: string; cutChars: number } {
  if (text.length <= max) return { text, cutChars: 0 };
  const head = Math.floor(max * 0.65);
  const tail = max - head;
  const cutChars = text.length - head - tail;
  return { text: `${text.slice(0, head)}\n… [${cutChars} chars cut] …\n${text.slice(text.length - tail)}`, cutChars };
}

function filesLine(input: DistillInput): string {
  if (input.filesTouched.length === 0) return 'none';
  const shown = input.filesTouched.slice(0, MAX_FILES).map((f) => `${f.path} (${f.how})`);
  const more = input.filesTouched.length - shown.length;
  return shown.join(', ') + (more > 0 ? `, and ${more} more` : '');
}

interface FilledValues {
  readonly values: Record<string, string>;
  readonly redacted: Partial<Record<SecretKind, number>>;
  readonly cutChars: number;
}

/**
 * The per-exchange placeholder values. Everything interpolated is redacted first — before the cut, so a
 * cut can never leave half a key that the patterns no longer recognise.
 */
function fillValues(input: DistillInput): FilledValues {
  const redacted: Partial<Record<SecretKind, number>> = {};
  const clean = (text: string): string => {
    const r = redactSecrets(text);
    for (const [kind, n] of Object.entries(r.found) as [SecretKind, number][]) redacted[kind] = (redacted[kind] ?? 0) + n;
    return r.text;
  };
  const messages = cutMessages(clean(input.verbatim));
  const values: Record<string, string> = {
    agent: input.agent,
    project: clean(input.project ?? 'unknown'),
    files: clean(filesLine(input)),
    plyStart: String(input.plyStart),
    plyEnd: String(input.plyEnd),
    messages: messages.text,
  };
  return { values, redacted, cutChars: messages.cutChars };
}

/** One pass over the template: a placeholder-like string inside the exchange is never expanded. */
function fill(template: string, values: Record<string, string>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (whole, key: string) => values[key] ?? whole);
}

/** Fills the single-exchange template (prompts/distill-v1.md). */
export function buildPrompt(input: DistillInput, template = loadPromptTemplate()): BuiltPrompt {
  const f = fillValues(input);
  return { n: input.n, text: fill(template, f.values), redacted: f.redacted, cutChars: f.cutChars };
}

/** Several exchanges in one request; the answer names them by `id` 1..N in this order. */
export interface BuiltBatchPrompt {
  readonly ns: readonly number[];
  readonly text: string;
  readonly redacted: Partial<Record<SecretKind, number>>;
  readonly cutChars: number;
}

const ITEM_MARKER = '<!-- ITEM -->';

/** Fills the batch template (prompts/distill-batch-v1.md): the frame once, the item part per exchange. */
export function buildBatchPrompt(inputs: readonly DistillInput[], template = loadPromptTemplate(BATCH_PROMPT_VERSION)): BuiltBatchPrompt {
  const at = template.indexOf(ITEM_MARKER);
  if (at < 0) throw new RecallError('prompt-missing', `The batch prompt has no ${ITEM_MARKER} section.`);
  const frame = template.slice(0, at).trimEnd();
  const item = template.slice(at + ITEM_MARKER.length).replace(/^\s*\n/, '');
  const redacted: Partial<Record<SecretKind, number>> = {};
  let cutChars = 0;
  const items = inputs.map((input, i) => {
    const f = fillValues(input);
    for (const [kind, n] of Object.entries(f.redacted) as [SecretKind, number][]) redacted[kind] = (redacted[kind] ?? 0) + n;
    cutChars += f.cutChars;
    return fill(item, { ...f.values, id: String(i + 1) });
  });
  const text = fill(frame, { count: String(inputs.length), exchanges: items.join('\n').trimEnd() });
  return { ns: inputs.map((x) => x.n), text, redacted, cutChars };
}
