import * as path from 'node:path';
import type { ConversationMeta, LineRange, Message } from '../model';
import { arr, headRecords, jsonOrUndefined, num, obj, type ParseInput, type ParseOutput, parseJsonLine, SkipCounter, type SourceAdapter, str } from './adapter';
import { readSideFile, type SourceLine } from './lines';
import { hasContent, isoFromAny, newMessage, spanMessage } from './message';

/**
 * JetBrains Junie (its CLI and the agent in the IDEs' AI Assistant), read from other projects' readers (deja-vu's, checked
 * by its author against Junie CLI 3110.7; agentsview's; no capture here): `${JUNIE_HOME:-~/.junie}/sessions/
 * session-<yymmdd>-<hhmmss>-<xxxx>/events.jsonl`, appended as the session runs, one event `{kind, timestampMs, ...}` a
 * line; `sessions/index.jsonl` gives each session's `projectDir`. `UserPromptEvent` is the person's prompt
 * (`presentablePrompt` as typed; `prompt` with what Junie added), `requestId` naming it for `UserMessagesDroppedFromHistory`.
 * The agent's work is `SessionA2uxEvent{event{state, agentEvent{kind, stepId, ...}}}`, a block per step updated in place
 * (the last update wins; a finished task replays its blocks): `MarkdownBlockUpdatedEvent` (`text`) and
 * `ResultBlockUpdatedEvent` (`result`, after `<!-- ANSWER -->`) what it said; `TerminalBlockUpdatedEvent` (`command`,
 * `output`, `status` FAILED), `ViewFilesBlockUpdatedEvent` (`files[{relativePath (absolute), lineFrom, lineTo}]`),
 * `FileChangesBlockUpdatedEvent` (`changes[{beforeRelativePath, afterRelativePath}]`) and `ToolBlockUpdatedEvent`
 * (`text`, `details`) what it did. A headless run (`junie "task"`) records no prompt event: its task is in `state.json`,
 * not read.
 */

type JsonRecord = Record<string, unknown>;

const SESSION_DIR_RE = /^session-\d{6}-\d{6}-[\w-]+$/;
const MAX_RESULT_CHARS = 20_000;
/** Top-level events that hold no conversation (task and history bookkeeping). */
const SILENT_EVENTS = new Set(['TaskStartedEvent', 'TaskState', 'UserMessagesCommittedToHistory', 'SystemMessageEvent', 'AgentTaskFailedEvent']);
/** Agent events that hold no conversation: status, state, plans, suggestions, usage windows, thinking. */
const SILENT_AGENT_EVENTS = new Set([
  'AgentCurrentStatusUpdatedEvent', 'AgentStateUpdatedEvent', 'AgentThoughtBlockUpdatedEvent', 'AgentPlanUpdatedEvent', 'AgentStartedEvent',
  'AgentPatchCreatedEvent', 'AgentFailureEvent', 'AvailablePullRequestsEvent', 'AskAsyncRequestUpdatedEvent', 'AuthorizationAvailabilityEvent',
  'ContextWindowReportEvent', 'ContextCompactionBlockUpdatedEvent', 'CurrentDirectoryUpdatedEvent', 'CustomAgentBlockUpdatedEvent',
  'EnvironmentVariablesUpdatedEvent', 'McpBlockUpdatedEvent', 'NextPromptSuggestionEvent', 'ShowPlanProgressEvent', 'SuggestPlanEvent',
  'TipSuggestionCreatedEvent',
]);

export const junieAdapter: SourceAdapter = {
  agent: 'junie',
  lineFormat: 'jsonl',
  matchesPath: (file) => path.basename(file) === 'events.jsonl',
  claimsPath: (file) => isJunieSessionDir(path.basename(path.dirname(file))) && path.basename(path.dirname(path.dirname(file))) === 'sessions',
  sniff: (head) => headRecords(head).some((r) => typeof r['timestampMs'] === 'number' && (r['kind'] === 'UserPromptEvent' || r['kind'] === 'SessionA2uxEvent')),
  probeProject: () => undefined,
  locateProject,
  parse: (input) => new JunieLogParser(input).run(),
};

/** A Junie session's folder: its log is in it; its task folders hold the agent's state, not transcripts. */
export function isJunieSessionDir(name: string): boolean {
  return SESSION_DIR_RE.test(name);
}

/** The session's `projectDir` in `sessions/index.jsonl`, else the first folder its agent says it works in. */
async function locateProject(file: string, head: readonly SourceLine[]): Promise<string | undefined> {
  const id = path.basename(path.dirname(file));
  const index = await readSideFile(path.join(path.dirname(path.dirname(file)), 'index.jsonl')).catch(() => '');
  let project: string | undefined;
  for (const line of index.split('\n')) {
    const rec = obj(jsonOrUndefined(line));
    if (rec?.['sessionId'] === id && str(rec['projectDir'])?.trim()) project = str(rec['projectDir'])!.trim();
  }
  if (project) return project;
  for (const r of headRecords(head)) {
    const agentEvent = obj(obj(r['event'])?.['agentEvent']);
    if (agentEvent?.['kind'] === 'CurrentDirectoryUpdatedEvent' && str(agentEvent['directory'])) return str(agentEvent['directory']);
  }
  return undefined;
}

class JunieLogParser {
  private readonly skips = new SkipCounter();
  private readonly messages: Message[] = [];
  /** The messages each step's block made, by step id: a later update of the block replaces them. */
  private readonly steps = new Map<string, Message[]>();
  private readonly prompts = new Map<string, Message>();
  private readonly dropped = new Set<Message>();
  private title: string | undefined;
  private model: string | undefined;

  constructor(private readonly input: ParseInput) {}

  run(): ParseOutput {
    for (const line of this.input.lines) this.consume(line);
    const messages = this.messages.filter((m) => !this.dropped.has(m) && hasContent(m));
    const conversations = messages.length === 0 ? [] : [{ sourceFile: this.input.file, meta: this.buildMeta(messages), messages }];
    return { conversations, skipped: this.skips.lines };
  }

  private consume(line: SourceLine): void {
    const rec = parseJsonLine(line, this.skips);
    if (!rec) return;
    const time = isoFromAny(num(rec['timestampMs']));
    switch (rec['kind']) {
      case 'UserPromptEvent': {
        const text = (str(rec['presentablePrompt'])?.trim() || str(rec['prompt'])?.trim()) ?? '';
        const id = str(rec['requestId']);
        const prompt = newMessage('prompt', line, text, time);
        this.messages.push(prompt);
        if (id) this.prompts.set(id, prompt);
        if (rec['delivery'] === 'Failed') this.dropped.add(prompt);
        return;
      }
      case 'UserMessagesDroppedFromHistory':
      case 'UserMessagesFailedInHistory':
        for (const id of arr(rec['userMessageIds'])) if (typeof id === 'string' && this.prompts.has(id)) this.dropped.add(this.prompts.get(id)!);
        return;
      case 'SessionTitleSetEvent':
        this.title = str(rec['name'])?.trim() || this.title;
        return;
      case 'SessionA2uxEvent':
        return this.onAgentEvent(obj(obj(rec['event'])?.['agentEvent']), line, time);
      default:
        if (!SILENT_EVENTS.has(str(rec['kind']) ?? '')) this.skips.add('unknown-record', line.line);
    }
  }

  private onAgentEvent(event: JsonRecord | undefined, line: SourceLine, time: string | undefined): void {
    const kind = str(event?.['kind']) ?? '';
    switch (kind) {
      case 'MarkdownBlockUpdatedEvent':
        return this.block(event!, line, time, (reply) => void (reply.text = (str(event!['text']) ?? '').trim()));
      case 'ResultBlockUpdatedEvent':
        return this.block(event!, line, time, (reply) => void (reply.text = (str(event!['result']) ?? '').replace(/^\s*<!-- ANSWER -->/, '').trim()));
      case 'TerminalBlockUpdatedEvent':
        return this.block(event!, line, time, (reply, results) => {
          const command = str(event!['command']);
          reply.toolCalls.push({ id: this.stepKey(event!, line), name: 'terminal', input: command ? { command } : {} });
          const output = str(event!['output']) ?? str(event!['presentableOutput']) ?? str(event!['details']);
          if (output !== undefined) results.toolResults.push({ toolUseId: this.stepKey(event!, line), text: output.slice(0, MAX_RESULT_CHARS), isError: event!['status'] === 'FAILED' });
        });
      case 'ViewFilesBlockUpdatedEvent':
        return this.block(event!, line, time, (reply) => {
          const files = arr(event!['files']).map(obj).filter((f): f is JsonRecord => !!str(f?.['relativePath']));
          reply.toolCalls.push({ id: this.stepKey(event!, line), name: 'view_files', input: { files: files.map((f) => f['relativePath']) } });
          reply.touched = files.map((f) => ({ path: str(f['relativePath'])!, how: 'read' as const, ...linesOf(f) }));
        });
      case 'FileChangesBlockUpdatedEvent':
        return this.block(event!, line, time, (reply) => {
          const changes = arr(event!['changes']).map(obj).filter((c): c is JsonRecord => !!c);
          const paths = changes.map((c) => str(c['afterRelativePath']) ?? str(c['beforeRelativePath'])).filter((p): p is string => !!p);
          reply.toolCalls.push({ id: this.stepKey(event!, line), name: 'file_changes', input: { files: paths } });
          // a change with no file before it made the file
          reply.touched = changes.flatMap((c) => {
            const file = str(c['afterRelativePath']) ?? str(c['beforeRelativePath']);
            return file ? [{ path: file, how: str(c['beforeRelativePath']) ? ('edit' as const) : ('write' as const) }] : [];
          });
        });
      case 'ToolBlockUpdatedEvent':
        return this.block(event!, line, time, (reply, results) => {
          reply.toolCalls.push({ id: this.stepKey(event!, line), name: 'tool', input: { text: str(event!['text']) ?? '' } });
          const details = str(event!['details']);
          if (details) results.toolResults.push({ toolUseId: this.stepKey(event!, line), text: details.slice(0, MAX_RESULT_CHARS), isError: event!['status'] === 'FAILED' });
        });
      case 'LlmResponseMetadataEvent':
        this.model ??= str(obj(arr(event!['modelUsage'])[0])?.['model']) ?? str(event!['model']);
        return;
      case 'AgentTaskNameUpdatedEvent':
        this.title ??= str(event!['name'])?.trim() || undefined;
        return;
      default:
        if (!SILENT_AGENT_EVENTS.has(kind)) this.skips.add('unknown-record', line.line);
    }
  }

  /**
   * A step's block: its reply (and the results it shows) made again from this update, in the place its first update
   * took; a block without a step id is a block of its own.
   */
  private block(event: JsonRecord, line: SourceLine, time: string | undefined, fill: (reply: Message, results: Message) => void): void {
    const key = this.stepKey(event, line);
    const old = this.steps.get(key);
    const first = old?.[0];
    const span = { line: first?.line ?? line.line, lineEnd: line.line, offset: first?.offset ?? line.offset };
    // the time the step began
    const timestamp = first?.timestamp ?? time;
    const reply = spanMessage('reply', span, '', { timestamp });
    const results = spanMessage('tool-results', span, '', { timestamp });
    fill(reply, results);
    const made = [reply, results];
    if (old) this.messages.splice(this.messages.indexOf(old[0]!), old.length, ...made);
    else this.messages.push(...made);
    this.steps.set(key, made);
  }

  private stepKey(event: JsonRecord, line: SourceLine): string {
    return str(event['stepId']) ?? `line ${line.line}`;
  }

  private buildMeta(messages: readonly Message[]): ConversationMeta {
    const resume = this.input.resume;
    const startedAt = resume?.startedAt ?? messages.find((m) => m.timestamp)?.timestamp;
    const title = this.title ?? resume?.title;
    const model = resume?.model ?? this.model;
    return {
      agent: 'junie',
      sessionId: resume?.sessionId ?? path.basename(path.dirname(this.input.file)),
      line: resume?.line ?? 1,
      isSubagent: false,
      ...(resume?.project ? { project: resume.project } : {}),
      ...(title ? { title } : {}),
      ...(startedAt ? { startedAt } : {}),
      ...(model ? { model } : {}),
    };
  }
}

/** The lines a viewed file's entry names (`lineFrom`, `lineTo`, 1-based), when it names them. */
function linesOf(f: JsonRecord): { lines?: LineRange[] } {
  const from = num(f['lineFrom']);
  const to = num(f['lineTo']);
  return from !== undefined && to !== undefined && from > 0 && to >= from ? { lines: [{ start: from, end: to }] } : {};
}

