import * as path from 'node:path';
import type { ConversationMeta, LineRange, Message, MessageKind, ToolCall, ToolResult } from '../model';
import { arr, headRecords, obj, type ParseInput, type ParseOutput, parseJsonLine, SkipCounter, type SourceAdapter, str } from './adapter';
import type { SourceLine } from './lines';
import { appendText, hasContent, newMessage } from './message';
import { RecordIds } from './recordIds';

/**
 * Claude Code sessions: `~/.claude/projects/<enc>/<sessionId>.jsonl`, one record per line.
 * The format knowledge (which user lines a human typed, how one API message is split over lines, where
 * subagents live) is in this file only; see notes/transcript-formats.md for what is on disk.
 */

/** Record types that carry no message but are known, so they are not counted as skipped. */
const NON_MESSAGE_TYPES = new Set([
  'system', 'summary', 'file-history-snapshot', 'queue-operation', 'progress', 'attachment', 'custom-title',
  'ai-title', 'pr-link', 'permission-mode', 'last-prompt', 'agent-name', 'mode', 'teleported-from',
]);
const CLAUDE_FIELDS = ['sessionId', 'uuid', 'leafUuid', 'messageId', 'snapshot'];

/** User lines Claude Code writes around slash commands, shell escapes and interrupts: nobody typed them. */
const WRAPPER_PREFIXES = [
  '<command-name>', '<command-message>', '<command-args>', '<local-command-stdout>', '<local-command-stderr>',
  '<local-command-caveat>', '<bash-input>', '<bash-stdout>', '<bash-stderr>',
  'Caveat: The messages below were generated', '[Request interrupted by user',
];
/**
 * The first prompt of a subagent Claude Code starts only to warm its prompt cache (`agent-*.jsonl` files of
 * two lines: "Warmup" and "I'm Claude Code, ready to help…"): nobody asked it, so it and its reply are not kept.
 */
const WARMUP_PROMPT = 'Warmup';
/** The wrapper of a slash command the person typed: `<command-name>/x</command-name>`, its arguments beside it. */
const COMMAND_NAME = /<command-name>\s*([^<]*?)\s*<\/command-name>/u;
const COMMAND_ARGS = /<command-args>([\s\S]*?)<\/command-args>/u;
/**
 * The user line Claude Code injects when a background task (a `Task` agent, a `Bash` call run in the background)
 * finishes: one or more `<task-notification>` blocks with the task's id, status, `<summary>` ("Agent "Poem about
 * Thai red curry" completed", "Background command "Install Bun via Homebrew" failed with exit code 1") and, for an
 * agent, its `<result>`. Nobody typed it: context.
 */
const NOTIFICATION_PREFIX = '<task-notification>';
const NOTIFICATION_SUMMARY = /<summary>([\s\S]*?)<\/summary>/gu;
/** Claude Code's plan mode: the plan is this call's `plan` input, the answer of the exchange (distill/exitPlan.ts). */
const PLAN_TOOL = 'ExitPlanMode';
/**
 * A message typed while the model works is queued: a `queue-operation` record `enqueue` with its text, then one record
 * saying what became of it. `dequeue`: sent as the next turn, and written again as a user line. `remove`: taken into
 * the running turn (appended to the next tool result) and, in the versions of the shared corpus (2.0.64–2.1.7), written
 * nowhere else, though the model acts on it: a prompt of the exchange open (model.ts `taken`). `popAll`: the person
 * interrupted and the queue went back to the input box, not to the model. A task's report (`<task-notification>`,
 * `<bash-notification>`), a slash command and NOT_A_MESSAGE taken so are no prompt. See docs/formats.md.
 */
const QUEUE_OPERATION = 'queue-operation';
/**
 * A queued text that is no message: only redaction markers (`[REDACTED_YUBIKEY_OTP]`), or the one-time password a
 * YubiKey types when touched (44 modhex letters): a secret gone to the wrong box, and the model goes on with its work
 * (the corpus: 0d510331 lines 26–33).
 */
const NOT_A_MESSAGE = /^(?:\s*\[REDACTED[^\]\n]{0,40}\]\s*)+$|^[cbdefghijklnrtuv]{44}$/u;

const REMINDER_OPEN = '<system-reminder>';
const REMINDER_CLOSE = '</system-reminder>';
const IMAGE_PLACEHOLDER = '[image]';
const SYNTHETIC_MODEL = '<synthetic>';

type JsonRecord = Record<string, unknown>;

export const claudeCodeAdapter: SourceAdapter = {
  agent: 'claude-code',
  lineFormat: 'jsonl',
  skipsRepeatedIds: true,
  matchesPath: (file) => file.endsWith('.jsonl'),
  sniff,
  probeProject,
  parse: (input) => new SessionParser(input).run(),
};

function sniff(head: readonly SourceLine[]): boolean {
  for (const rec of headRecords(head)) {
    if (looksLikeCodex(rec)) return false;
    if (isKnownType(str(rec['type'])) && CLAUDE_FIELDS.some((k) => k in rec)) return true;
  }
  return false;
}

/** Codex rollouts: the envelope layout (`session_meta` + payload) or the legacy header / state lines. */
function looksLikeCodex(rec: JsonRecord): boolean {
  if ('payload' in rec && rec['type'] === 'session_meta') return true;
  if ('record_type' in rec) return true;
  return 'instructions' in rec && 'id' in rec && !('type' in rec);
}

function isKnownType(type: string | undefined): boolean {
  return type === 'user' || type === 'assistant' || (type !== undefined && NON_MESSAGE_TYPES.has(type));
}

function probeProject(head: readonly SourceLine[]): string | undefined {
  const scratch = new SkipCounter();
  for (const line of head) {
    if (!line.text.includes('"cwd"')) continue; // summaries and snapshots carry none: skip them unparsed
    const cwd = str(parseJsonLine(line, scratch)?.['cwd']);
    if (cwd) return cwd;
  }
  return undefined;
}

/** One pass over a file's lines: messages are built as lines arrive, the meta once at the end. */
class SessionParser {
  private readonly skips = new SkipCounter();
  private readonly messages: Message[] = [];
  private readonly seenUuids: RecordIds;
  private readonly facts = new SessionFacts();
  /**
   * Open assistant replies by API `message.id`. Claude Code writes one content block per line and may
   * interleave the tool results of earlier blocks, so later lines of the same id join the reply at its first
   * position. Cleared at each new user turn: an id never spans a prompt.
   */
  private readonly openReplies = new Map<string, Message>();
  /** A `compact_boundary` was seen: the next user line is the agent's summary of the earlier conversation. */
  private summaryPending = false;
  /** Inside a subagent's warm-up (WARMUP_PROMPT): its reply is dropped too, up to the next prompt. */
  private warmingUp = false;
  /**
   * A slash command the person typed, held until it is known whether the model answers it: a reply before the next
   * user line makes it the prompt of an exchange of its own (else the reply joined the exchange before); a local
   * command (/clear, /model…: its output line comes instead) or a new prompt drops it, as before.
   */
  private pendingCommand: PendingCommand | undefined;
  /**
   * A background task's report, held likewise: answered by the model (an assistant line before the next user line),
   * it opens an exchange of its own named by its summaries (segment.ts), since it arrives whenever the task ends,
   * mostly after the person has moved on, and the reply is about the task, not about the exchange then open; else it
   * is context of that exchange, as before.
   */
  private pendingNotification: PendingNotification | undefined;
  /**
   * The texts queued while the model works (QUEUE_OPERATION), oldest first, of the exchange open: emptied at each user
   * line that is no tool result (where an exchange can start), and an item queued before the first message with
   * content is left out. So the queue never outlives an exchange, and a parse resumed at an exchange's start (an
   * appended file) begins with what a read of the whole file has there: nothing. No later line is looked at.
   */
  private readonly queued: string[] = [];
  /** A message with content has been pushed (queued items count from then on). */
  private contentSeen = false;

  constructor(private readonly input: ParseInput) {
    this.seenUuids = new RecordIds(input.seenIds);
  }

  run(): ParseOutput {
    for (const line of this.input.lines) this.consume(line);
    this.settleNotification(false);
    const messages = this.messages.filter(hasContent); // drops thinking-only replies
    const conversations =
      messages.length === 0 ? [] : [{ sourceFile: this.input.file, meta: this.buildMeta(), messages }];
    return { conversations, skipped: this.skips.lines, idsBefore: (offset) => this.seenUuids.before(offset) };
  }

  private consume(line: SourceLine): void {
    const rec = parseJsonLine(line, this.skips);
    if (!rec) return;
    const uuid = str(rec['uuid']);
    if (uuid !== undefined) {
      // `--resume` replays earlier records with their original uuids.
      if (!this.seenUuids.firstRead(uuid, line)) return this.skips.add('duplicate-uuid', line.line);
    }
    this.facts.observe(rec);
    const type = str(rec['type']);
    if (type === 'user') this.onUser(rec, line);
    else if (type === 'assistant') this.onAssistant(rec, line);
    else if (type === 'system' && rec['subtype'] === 'compact_boundary') this.summaryPending = true;
    else if (type === QUEUE_OPERATION) this.onQueueOperation(rec, line);
    else if (type === undefined || !NON_MESSAGE_TYPES.has(type)) this.skips.add('unknown-record', line.line);
  }

  private onUser(rec: JsonRecord, line: SourceLine): void {
    const message = obj(rec['message']);
    if (!message) return this.skips.add('unknown-record', line.line);
    const content = message['content'];
    if (rec['isMeta'] === true) return this.onMeta(rec, line, content); // skill bodies, caveats, expanded commands: not human
    this.settleNotification(false);
    if (Array.isArray(content) && content.some(isToolResultBlock)) return this.onToolResults(rec, line, content);

    this.openReplies.clear();
    this.pendingCommand = undefined;
    this.queued.length = 0;
    if (rec['isCompactSummary'] === true || this.summaryPending) {
      this.summaryPending = false;
      const summary = userText(content).trim();
      if (summary) this.push('context', rec, line, summary);
      return;
    }
    const text = stripSystemReminders(userText(content)).trim();
    if (!text) return;
    if (startsWithAny(text, WRAPPER_PREFIXES)) {
      const command = typedCommand(text);
      if (command) this.pendingCommand = { rec, line, text: command };
      return;
    }
    if (text.startsWith(NOTIFICATION_PREFIX)) {
      this.pendingNotification = { rec, line, text };
      return;
    }
    this.warmingUp = text === WARMUP_PROMPT && rec['isSidechain'] === true && rec['parentUuid'] === null;
    if (this.warmingUp) return;
    this.push('prompt', rec, line, text);
  }

  /**
   * Pushes the held task report as context; `answered` (the model's line follows it) makes it open an exchange named
   * by its summaries, when it has any (none: it stays context, since nothing in it would name the exchange).
   */
  private settleNotification(answered: boolean): void {
    const held = this.pendingNotification;
    if (!held) return;
    this.pendingNotification = undefined;
    const summaries = [...held.text.matchAll(NOTIFICATION_SUMMARY)].map((m) => m[1]!.trim()).filter(Boolean);
    const opens = answered && summaries.length > 0 ? summaries.join('\n') : undefined;
    this.push('context', held.rec, held.line, held.text, opens);
  }

  /**
   * An `isMeta` user line: nothing a person typed. Right after a slash command it is the command's expansion (the
   * prompt Claude Code sent for it), kept with the command as context should the model answer it.
   */
  private onMeta(rec: JsonRecord, line: SourceLine, content: unknown): void {
    const command = this.pendingCommand;
    if (!command || command.expansion || (Array.isArray(content) && content.some(isToolResultBlock))) return;
    const text = stripSystemReminders(userText(content)).trim();
    if (text && !startsWithAny(text, WRAPPER_PREFIXES)) command.expansion = { rec, line, text };
  }

  /** The model answers a typed slash command: the command is the prompt (as typed), its expansion context. */
  private flushCommand(): void {
    const command = this.pendingCommand;
    if (!command) return;
    this.pendingCommand = undefined;
    this.push('prompt', command.rec, command.line, command.text);
    const expansion = command.expansion;
    if (expansion) this.push('context', expansion.rec, expansion.line, expansion.text);
  }

  /**
   * Follows the queue (QUEUE_OPERATION): a message `remove` takes into the turn is a prompt in the person's words at the
   * `remove` line, joining the exchange open (segment.ts). An operation naming its text takes that item, else the oldest.
   */
  private onQueueOperation(rec: JsonRecord, line: SourceLine): void {
    const operation = str(rec['operation']);
    const text = (str(rec['content']) ?? '').trim();
    if (operation === 'enqueue') {
      if (this.hasContentSoFar()) this.queued.push(text);
      return;
    }
    if (operation === 'popAll') return void (this.queued.length = 0);
    if (operation !== 'dequeue' && operation !== 'remove') return;
    const at = text ? this.queued.indexOf(text) : 0;
    const taken = at >= 0 ? this.queued.splice(at, 1)[0] : undefined;
    if (operation !== 'remove' || !taken || !isQueuedMessage(taken)) return;
    // the lines before it are settled first, so the messages stay in the order of their lines
    this.settleNotification(false);
    this.flushCommand();
    this.messages.push({ ...newMessage('prompt', line, taken, str(rec['timestamp'])), taken: true });
  }

  private hasContentSoFar(): boolean {
    this.contentSeen ||= this.messages.some(hasContent);
    return this.contentSeen;
  }

  /**
   * Parallel tool calls come back as one user line per result: consecutive result lines are merged into one
   * 'tool-results' message (mirroring the single API user message they stand for), line range widened.
   */
  private onToolResults(rec: JsonRecord, line: SourceLine, blocks: unknown[]): void {
    const resultBlocks = blocks.filter(isToolResultBlock);
    // The sidecar describes the line's tool output; with several results on one line it is ambiguous.
    const sidecar = resultBlocks.length === 1 ? obj(rec['toolUseResult']) : undefined;
    const results = resultBlocks.map((b) => toolResult(b, sidecar));
    const text = stripSystemReminders(blocksText(blocks.filter((b) => !isToolResultBlock(b)), '\n\n')).trim();

    const prev = this.messages[this.messages.length - 1];
    if (prev?.kind === 'tool-results') {
      prev.toolResults.push(...results);
      appendText(prev, text);
      prev.lineEnd = line.line;
      return;
    }
    this.push('tool-results', rec, line, text).toolResults.push(...results);
  }

  private onAssistant(rec: JsonRecord, line: SourceLine): void {
    const message = obj(rec['message']);
    if (!message) return this.skips.add('unknown-record', line.line);
    if (this.warmingUp) return;
    this.settleNotification(true);
    this.flushCommand();
    const id = str(message['id']);
    let reply = id === undefined ? undefined : this.openReplies.get(id);
    if (!reply) {
      reply = this.push('reply', rec, line, '');
      if (id !== undefined) this.openReplies.set(id, reply);
    }
    appendAssistantContent(reply, message['content']);
    reply.lineEnd = line.line;
  }

  private push(kind: MessageKind, rec: JsonRecord, line: SourceLine, text: string, opens?: string): Message {
    const uuid = str(rec['uuid']);
    const m = {
      ...newMessage(kind, line, text, str(rec['timestamp'])),
      ...(uuid !== undefined ? { uuid } : {}),
      ...(opens !== undefined ? { opens } : {}),
    };
    this.messages.push(m);
    return m;
  }

  private buildMeta(): ConversationMeta {
    const f = this.facts;
    const resume = this.input.resume;
    // Parsing resumed mid-file: the identity was fixed when the head was parsed and must not change (the
    // conversation key derives from it); descriptive fields missing then may be filled in now.
    const identity = resume
      ? pickIdentity(resume)
      : identityFor(this.input.file, f, this.input.lines[0]?.line ?? 1);
    return withoutUndefined({
      ...identity,
      project: resume?.project ?? f.project,
      gitBranch: resume?.gitBranch ?? f.gitBranch,
      title: f.customTitle ?? resume?.title ?? f.aiTitle ?? f.summaryTitle(this.seenUuids),
      startedAt: resume?.startedAt ?? f.startedAt,
      model: resume?.model ?? f.model,
    });
  }
}

/** Header facts gathered from every record, since no single line carries them all. */
class SessionFacts {
  sessionId?: string;
  project?: string;
  gitBranch?: string;
  startedAt?: string;
  model?: string;
  customTitle?: string;
  aiTitle?: string;
  /** From the first user/assistant record: subagent records carry `isSidechain` and their `agentId`. */
  sidechainAgentId?: string;
  private firstMessageSeen = false;
  private readonly summaries: Array<{ text: string; leafUuid?: string }> = [];

  observe(rec: JsonRecord): void {
    this.sessionId ??= str(rec['sessionId']);
    this.project ??= str(rec['cwd']);
    this.gitBranch ??= str(rec['gitBranch']) || undefined;
    this.startedAt ??= str(rec['timestamp']);
    const type = rec['type'];
    if (type === 'user' || type === 'assistant') this.observeMessage(rec);
    else if (type === 'custom-title') this.customTitle = str(rec['customTitle']) ?? this.customTitle;
    else if (type === 'ai-title') this.aiTitle = str(rec['aiTitle']) ?? this.aiTitle;
    else if (type === 'summary') {
      const text = str(rec['summary']);
      const leafUuid = str(rec['leafUuid']);
      if (text) this.summaries.push(leafUuid !== undefined ? { text, leafUuid } : { text });
    }
  }

  private observeMessage(rec: JsonRecord): void {
    if (!this.firstMessageSeen) {
      this.firstMessageSeen = true;
      if (rec['isSidechain'] === true) this.sidechainAgentId = str(rec['agentId']);
    }
    if (this.model === undefined && rec['type'] === 'assistant') {
      const model = str(obj(rec['message'])?.['model']);
      if (model && model !== SYNTHETIC_MODEL) this.model = model;
    }
  }

  /**
   * Older versions write `summary` records for whole conversation chains, often several at the top of a
   * file and some about earlier files: prefer the latest one whose leaf is in this file.
   */
  summaryTitle(uuids: Pick<RecordIds, 'has'>): string | undefined {
    const own = this.summaries.filter((s) => s.leafUuid !== undefined && uuids.has(s.leafUuid));
    return (own.length ? own : this.summaries).at(-1)?.text;
  }
}

interface PendingNotification {
  readonly rec: JsonRecord;
  readonly line: SourceLine;
  readonly text: string;
}

interface PendingCommand {
  readonly rec: JsonRecord;
  readonly line: SourceLine;
  /** The command as typed: `/name` and its arguments. */
  readonly text: string;
  /** The isMeta line after it: the prompt Claude Code sent for the command (the agent's text, not the person's). */
  expansion?: { readonly rec: JsonRecord; readonly line: SourceLine; readonly text: string };
}

/** A queued text taken into the turn that is the person's message: no task report, slash command or NOT_A_MESSAGE. */
function isQueuedMessage(text: string): boolean {
  return text !== '' && !text.startsWith('<') && !text.startsWith('/') && !NOT_A_MESSAGE.test(text);
}

/** `/name args` from a slash command's wrapper line, or undefined for the other wrappers (outputs, caveats). */
function typedCommand(text: string): string | undefined {
  const name = COMMAND_NAME.exec(text)?.[1];
  if (!name) return undefined;
  const args = COMMAND_ARGS.exec(text)?.[1]?.trim();
  const command = name.startsWith('/') ? name : `/${name}`;
  return args ? `${command} ${args}` : command;
}

type Identity = Pick<ConversationMeta, 'agent' | 'sessionId' | 'isSubagent' | 'parentSessionId' | 'line'>;

function pickIdentity(meta: ConversationMeta): Identity {
  const { agent, sessionId, isSubagent, parentSessionId, line } = meta;
  return { agent, sessionId, isSubagent, parentSessionId, line };
}

/**
 * Subagent records carry their PARENT's sessionId, so a subagent gets its own id `<parent>/agent-<agentId>`:
 * distinct from the parent (conversations and exchanges are keyed by session), stable across re-indexing,
 * and readable as "this agent inside that session".
 */
function identityFor(file: string, facts: SessionFacts, line: number): Identity {
  const base = path.basename(file, '.jsonl');
  const fromPath = subagentFromPath(file);
  const agentId = fromPath?.agentId ?? facts.sidechainAgentId;
  if (fromPath === undefined && agentId === undefined) {
    return { agent: 'claude-code', sessionId: facts.sessionId ?? base, isSubagent: false, line };
  }
  const parent = facts.sessionId ?? fromPath?.parentFromPath;
  const own = agentId !== undefined ? `agent-${agentId}` : base;
  return {
    agent: 'claude-code',
    sessionId: parent !== undefined ? `${parent}/${own}` : own,
    isSubagent: true,
    parentSessionId: parent,
    line,
  };
}

/** `<sessionId>/subagents/agent-<id>.jsonl` (newer) or `agent-<hex>.jsonl` beside the sessions (older). */
function subagentFromPath(file: string): { agentId: string; parentFromPath?: string } | undefined {
  const parts = file.split(/[\\/]/);
  const name = parts[parts.length - 1] ?? '';
  if (parts[parts.length - 2] === 'subagents' && name.startsWith('agent-')) {
    const parentFromPath = parts[parts.length - 3];
    const agentId = name.slice('agent-'.length, -'.jsonl'.length);
    return parentFromPath ? { agentId, parentFromPath } : { agentId };
  }
  const older = /^agent-([0-9a-f]+)\.jsonl$/.exec(name);
  return older ? { agentId: older[1]! } : undefined;
}

function withoutUndefined<T extends object>(value: T): T {
  for (const key of Object.keys(value) as Array<keyof T>) if (value[key] === undefined) delete value[key];
  return value;
}

function isToolResultBlock(block: unknown): boolean {
  return obj(block)?.['type'] === 'tool_result';
}

/** A user message's text: a plain string, or its text blocks with images as placeholders (never base64). */
function userText(content: unknown): string {
  return typeof content === 'string' ? content : blocksText(arr(content), '\n\n');
}

function blocksText(blocks: readonly unknown[], separator: string): string {
  const parts: string[] = [];
  for (const raw of blocks) {
    const block = obj(raw);
    if (block?.['type'] === 'text') {
      const text = str(block['text']);
      if (text) parts.push(text);
    } else if (block?.['type'] === 'image') parts.push(IMAGE_PLACEHOLDER);
  }
  return parts.join(separator);
}

function toolResult(raw: unknown, sidecar: JsonRecord | undefined): ToolResult {
  const block = obj(raw) ?? {};
  const content = block['content'];
  const text = typeof content === 'string' ? content : blocksText(arr(content), '\n');
  const toolUseId = str(block['tool_use_id']);
  const filePath = sidecar ? sidecarFilePath(sidecar) : undefined;
  const editedLines = sidecar ? patchRanges(sidecar['structuredPatch']) : [];
  return {
    ...(toolUseId !== undefined ? { toolUseId } : {}),
    text: stripSystemReminders(text),
    isError: block['is_error'] === true,
    ...(filePath !== undefined ? { filePath } : {}),
    ...(editedLines.length ? { editedLines } : {}),
  };
}

/** Edit/MultiEdit/Write record `filePath`; Read records `file.filePath`. */
function sidecarFilePath(sidecar: JsonRecord): string | undefined {
  return str(sidecar['filePath']) ?? str(obj(sidecar['file'])?.['filePath']);
}

/**
 * The new-file lines each hunk covers, 1-based inclusive. A pure deletion (`newLines` 0) still marks the
 * line where the removed text was, so the place stays findable.
 */
function patchRanges(patch: unknown): LineRange[] {
  const ranges: LineRange[] = [];
  for (const raw of arr(patch)) {
    const hunk = obj(raw);
    const start = hunk?.['newStart'];
    const count = hunk?.['newLines'];
    if (typeof start !== 'number' || typeof count !== 'number') continue;
    ranges.push({ start, end: start + Math.max(count, 1) - 1 });
  }
  return ranges;
}

/** Adds one assistant line's blocks to its reply: text joined by blank lines, tool calls kept, thinking omitted. */
function appendAssistantContent(reply: Message, content: unknown): void {
  if (typeof content === 'string') return appendText(reply, content);
  for (const raw of arr(content)) {
    const block = obj(raw);
    const type = block?.['type'];
    if (!block) continue;
    if (type === 'text') appendText(reply, str(block['text']) ?? '');
    else if (type === 'tool_use' || type === 'server_tool_use') reply.toolCalls.push(toolCall(block));
  }
}

function toolCall(block: JsonRecord): ToolCall {
  const id = str(block['id']);
  const name = str(block['name']) ?? 'unknown';
  const call = { ...(id !== undefined ? { id } : {}), name, input: block['input'] };
  const input = obj(block['input']);
  const plan = name === PLAN_TOOL ? str(input?.['plan'])?.trim() : undefined;
  if (!input || !plan) return call;
  // the plan is the answer, whole; the rest of the input (if any) is the call's as before
  const { plan: _plan, ...rest } = input;
  return { ...call, input: Object.keys(rest).length > 0 ? rest : undefined, said: plan };
}

/** Removes `<system-reminder>` blocks the agent appends to user turns; an unclosed tag is left as typed. */
function stripSystemReminders(text: string): string {
  let start = text.indexOf(REMINDER_OPEN);
  if (start === -1) return text;
  let out = '';
  let pos = 0;
  while (start !== -1) {
    const end = text.indexOf(REMINDER_CLOSE, start + REMINDER_OPEN.length);
    if (end === -1) break;
    out += text.slice(pos, start);
    pos = end + REMINDER_CLOSE.length;
    start = text.indexOf(REMINDER_OPEN, pos);
  }
  return out + text.slice(pos);
}

function startsWithAny(text: string, prefixes: readonly string[]): boolean {
  return prefixes.some((p) => text.startsWith(p));
}
