import * as path from 'node:path';
import { stableId } from '../ids';
import type { Conversation, ConversationMeta, Message } from '../model';
import { isOversized, type ParseInput, type ParseOutput, SkipCounter, type SourceAdapter } from './adapter';
import type { SourceLine } from './lines';
import { hasContent, isoTime, newMessage } from './message';

/**
 * Aider's `<repo>/.aider.chat.history.md`: every run appends a session to the same file.
 *
 *   # aider chat started at 2025-03-14 09:12:45      (a new session, local time)
 *   > Aider v0.86.2                                   (tool/system output, `> ` lines)
 *   #### fix the rounding in invoice totals           (the prompt: consecutive `#### ` lines)
 *   The bug is in ...                                 (the reply: plain markdown)
 *   > Applied edit to billing/totals.py               (tool output again)
 *
 * Aider writes its own lines (`####`, `>`) with two trailing spaces (markdown hard breaks); the model's
 * text has none. That tells a `#### ` or `> ` line inside a code block of a reply (a markdown file being
 * written) apart from Aider's own. Outside code blocks the prefix alone decides, so a history whose
 * trailing spaces an editor stripped still parses.
 */

const HEADER_RE = /^# aider chat started at (\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})/;
const PROMPT_RE = /^####(?: (.*))?$/;
const TOOL_RE = /^>(?: (.*))?$/;
const FENCE_RE = /^\s*(?:```|~~~)/;
const AIDER_LINE_END = '  ';
/** Aider's yes/no questions, sometimes logged as `####` input: the answer, not a prompt. */
const CONFIRM_RE = /\(Y\)es\/\(N\)o/;
/** Reasoning models' thinking, which Aider wraps in tags: omitted like thinking elsewhere. */
const THINK_OPEN_RE = /^\s*<(think|thinking-content-[0-9a-f]+)>/;
const MODEL_RE = /^(?:Main )?[Mm]odel: (\S+)/;
const ERROR_RE = /^(?:Traceback \(most recent call last\)|[\w.]*(?:Error|Exception):)/;

export const aiderAdapter: SourceAdapter = {
  agent: 'aider',
  lineFormat: 'markdown',
  matchesPath: (file) => /(?:^|[\\/])\.aider\.chat\.history\.md$/.test(file),
  sniff: (head) => head.some((l) => HEADER_RE.test(l.text) || PROMPT_RE.test(l.text)),
  // The history lives in the repository it belongs to.
  probeProject: () => undefined,
  projectOfPath: (file) => path.dirname(file),
  parse,
};

type LineKind = 'prompt' | 'tool' | 'reply';

/** A classified line: its kind and its text without Aider's `#### ` / `> ` prefix. */
interface Classified {
  readonly kind: LineKind;
  readonly text: string;
}

function parse(input: ParseInput): ParseOutput {
  const skips = new SkipCounter();
  const conversations: Conversation[] = [];
  let session: SessionBuilder | undefined;
  const close = (): void => {
    const conv = session?.finish();
    if (conv) conversations.push(conv);
  };
  for (const line of input.lines) {
    if (isOversized(line)) {
      skips.add('oversized-line', line.line);
      continue;
    }
    const header = HEADER_RE.exec(line.text);
    if (header) {
      close();
      session = new SessionBuilder(input.file, headerMeta(line, header[1]!, header[2]!), false);
      continue;
    }
    // Lines before any header: a resumed parse continues the session it was in; otherwise the file's top was cut.
    session ??= new SessionBuilder(input.file, input.resume ?? headlessMeta(line), input.resume !== undefined);
    session.consume(line);
  }
  close();
  return { conversations, skipped: skips.lines };
}

/**
 * The session id comes from the header text alone: a copied or moved repository keeps its ids, and the
 * conversation key (which includes the source file) still tells two files' sessions apart.
 */
function headerMeta(line: SourceLine, date: string, time: string): ConversationMeta {
  const startedAt = isoTime(date, time, 'local');
  return {
    agent: 'aider',
    sessionId: stableId('aider', line.text.trim()),
    line: line.line,
    isSubagent: false,
    ...(startedAt !== undefined ? { startedAt } : {}),
  };
}

/** A file whose top was cut: its first line stands in for the header. */
function headlessMeta(line: SourceLine): ConversationMeta {
  const sessionId = stableId('aider', line.line, line.text.trim());
  return { agent: 'aider', sessionId, line: line.line, isSubagent: false };
}

/** Builds one session's messages line by line; a message is a run of lines of one kind. */
class SessionBuilder {
  private readonly messages: Message[] = [];
  private current: Message | undefined;
  private currentKind: LineKind | undefined;
  private inFence = false;
  private inThinking: RegExp | undefined;

  /** `promptSeen` is true for a resumed parse: its lines start at an exchange, after the start-up banner. */
  constructor(
    private readonly file: string,
    private meta: ConversationMeta,
    private promptSeen: boolean,
  ) {}

  consume(line: SourceLine): void {
    if (line.text.trim() === '') return this.blank();
    const { kind, text } = this.classify(line.text);
    if (kind === 'prompt') this.promptSeen = true;
    else if (kind === 'tool' && !this.promptSeen) return this.readBanner(text);
    if (kind !== this.currentKind) this.start(kind, line);
    this.current!.lineEnd = line.line;
    if (kind === 'prompt') appendLine(this.current!, text);
    else if (kind === 'tool') this.appendTool(text);
    else this.appendReply(text);
  }

  finish(): Conversation | undefined {
    const messages: Message[] = [];
    let lastReply: Message | undefined;
    for (const m of this.messages) {
      m.text = m.text.replace(/\n{3,}/g, '\n\n').trim();
      if (!hasContent(m)) continue;
      const handoff = m.kind === 'prompt' && lastReply !== undefined && sameText(m.text, lastReply.text);
      messages.push(handoff ? { ...m, kind: 'context' } : m);
      if (m.kind === 'reply') lastReply = m;
    }
    return messages.length ? { sourceFile: this.file, meta: this.meta, messages } : undefined;
  }

  /** A blank line ends a prompt (its lines are consecutive); replies and tool output run on across it. */
  private blank(): void {
    if (this.currentKind === 'prompt') this.current = this.currentKind = undefined;
    else if (this.currentKind === 'reply' && !this.inThinking) this.current!.text += '\n';
  }

  private classify(text: string): Classified {
    // Inside a code block of a reply only Aider's own lines (with its trailing hard break) end the reply.
    if (this.inFence && this.currentKind === 'reply' && !text.endsWith(AIDER_LINE_END)) return { kind: 'reply', text };
    const prompt = PROMPT_RE.exec(text);
    if (prompt) return { kind: CONFIRM_RE.test(text) ? 'tool' : 'prompt', text: prompt[1] ?? '' };
    const tool = TOOL_RE.exec(text);
    return tool ? { kind: 'tool', text: tool[1] ?? '' } : { kind: 'reply', text };
  }

  private start(kind: LineKind, line: SourceLine): void {
    this.current = newMessage(kind === 'prompt' ? 'prompt' : kind === 'tool' ? 'tool-results' : 'reply', line, '');
    this.currentKind = kind;
    this.inFence = false;
    this.inThinking = undefined;
    if (kind === 'tool') this.current.toolResults.push({ text: '', isError: false });
    this.messages.push(this.current);
  }

  /** A run of `> ` lines is one tool output: "Applied edit to ...", "Add file to the chat?", errors. */
  private appendTool(text: string): void {
    const results = this.current!.toolResults;
    const prev = results[0]!;
    const line = text.trimEnd();
    results[0] = { text: prev.text ? `${prev.text}\n${line}` : line, isError: prev.isError || ERROR_RE.test(line) };
  }

  private appendReply(text: string): void {
    if (this.inThinking) {
      if (this.inThinking.test(text)) this.inThinking = undefined;
      return;
    }
    const think = this.inFence ? null : THINK_OPEN_RE.exec(text);
    if (think) {
      const close = new RegExp(`</${think[1]}>`);
      if (!close.test(text)) this.inThinking = close;
      return;
    }
    if (FENCE_RE.test(text)) this.inFence = !this.inFence;
    appendLine(this.current!, text);
  }

  /** Start-up output before the first prompt (version, model, repo): part of no exchange, but it names the model. */
  private readBanner(text: string): void {
    const model = MODEL_RE.exec(text)?.[1];
    if (model && this.meta.model === undefined) this.meta = { ...this.meta, model };
  }
}

/**
 * In architect mode Aider hands the architect's answer to the editor model by logging it as `####` input:
 * a "prompt" that repeats the previous reply is that handoff, not something a person typed.
 */
function sameText(a: string, b: string): boolean {
  return a.length > 0 && a.replace(/\s+/g, ' ') === b.replace(/\s+/g, ' ');
}

function appendLine(m: Message, text: string): void {
  const line = text.trimEnd();
  m.text = m.text ? `${m.text}\n${line}` : line;
}
