import type { Message, ToolCall, ToolResult } from './model';
import { boundedJson, withBoundedDepth } from './boundedJson';
import { type Plan, changedSteps, checklist, isAcknowledgement, planOf, readPlanOf } from './planCalls';

/**
 * The verbatim rendering of an exchange, stored and searched (BM25) and shown to the user:
 * - `User:` the human prompt, complete;
 * - `Assistant:` each reply's text, complete, followed by one `[tool] Name summary` line per tool call
 *   (the summary is the input's path/command/pattern, or its JSON, cut to TOOL_INPUT_CHARS); what the agent says
 *   through a call (`ToolCall.said`: Claude Code's plan) follows its line as an `Assistant:` paragraph, complete;
 * - `[result]` / `[error]` lines for tool outputs, cut to TOOL_OUTPUT_CHARS with a visible
 *   `… [N more chars]` marker (outputs are long and rarely what a person remembers);
 * - `[context]` for user-side text that no human wrote (compaction summaries), cut likewise;
 * - an agent's to-do list (planCalls.ts) as `[tool] Name ✓ step · ▸ step · ○ step`, every step whole: the first
 *   and the last of an exchange's updates whole, each one between only the steps it changed, and the tool's fixed
 *   acknowledgement left out.
 */
export const TOOL_INPUT_CHARS = 300;
export const TOOL_OUTPUT_CHARS = 600;
export const CONTEXT_CHARS = 1_000;

/** The part of an exchange a rendered line opens, by the label it starts with. */
export type LineRole = 'user' | 'assistant' | 'tool' | 'result' | 'error' | 'context';

/** The labels lines start with, and the part each opens (`[result]` and `[error]` may stand alone). */
const LINE_LABELS: ReadonlyArray<readonly [string, LineRole]> = [
  ['User: ', 'user'],
  ['Assistant: ', 'assistant'],
  ['[tool] ', 'tool'],
  ['[result]', 'result'],
  ['[error]', 'error'],
  ['[context] ', 'context'],
];

const [LABEL_U, LABEL_A, LABEL_BRACKET] = ['U', 'A', '['].map((c) => c.charCodeAt(0));

/** The role a rendered line opens and the length of its label, or undefined for a continuation line. */
export function lineLabel(line: string): { readonly role: LineRole; readonly length: number } | undefined {
  // every label starts with `U`, `A` or `[`: most lines (a reply's text, an output's) start otherwise
  const first = line.charCodeAt(0);
  if (first !== LABEL_U && first !== LABEL_A && first !== LABEL_BRACKET) return undefined;
  const found = LINE_LABELS.find(([label]) => line.startsWith(label));
  return found && { role: found[1], length: found[0].length };
}

/** Every role label at a line start, with the space after it: the rendering's markup, not what anyone said. */
export const ROLE_LABEL_RE = /^(?:User:|Assistant:|\[(?:tool|result|error|context)\])[ \t]?/gm;

const LABELS = new Set(LINE_LABELS.map(([label]) => label.trim()));

/** Whether `text[start, end)` is the word of a role label at a line start (`User` of `User:`, `tool` of `[tool]`). */
export function isRoleLabelWord(text: string, start: number, end: number): boolean {
  const line = start > 0 && text[start - 1] === '[' ? start - 1 : start;
  return (line === 0 || text[line - 1] === '\n') && LABELS.has(text.slice(line, end + 1));
}

export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}… [${text.length - max} more chars]`;
}

const INPUT_KEYS = ['file_path', 'notebook_path', 'path', 'filePath', 'command', 'cmd', 'pattern', 'url', 'query', 'description'];

export function summarizeToolInput(input: unknown): string {
  return withBoundedDepth(input, summarize);
}

function summarize(input: unknown): string {
  if (typeof input === 'string') return truncate(oneLine(input), TOOL_INPUT_CHARS);
  if (typeof input === 'object' && input !== null) {
    const rec = input as Record<string, unknown>;
    const picked = INPUT_KEYS.map((k) => rec[k]).filter((v) => typeof v === 'string' || Array.isArray(v));
    if (picked.length > 0) {
      const text = picked.map((v) => (Array.isArray(v) ? v.join(' ') : String(v))).join(' ');
      return truncate(oneLine(text), TOOL_INPUT_CHARS);
    }
    return truncate(oneLine(boundedJson(input)), TOOL_INPUT_CHARS);
  }
  return '';
}

function oneLine(s: string): string {
  return s.replace(/\s*\n\s*/g, ' ⏎ ').trim();
}

function renderToolCall(call: ToolCall, plans: PlanRendering): string {
  const plan = plans.shown(call);
  const summary = plan ?? summarizeToolInput(call.input);
  const line = summary ? `[tool] ${call.name} ${summary}` : `[tool] ${call.name}`;
  // what the agent says through the call (a plan) is its answer: whole, as its words, a paragraph after the call
  const said = call.said?.trim();
  return said ? `${line}\n\nAssistant: ${said}` : line;
}

function renderToolResult(result: ToolResult): string {
  const tag = result.isError ? '[error]' : '[result]';
  const text = result.isError ? withoutRepeatedLines(result.text.trim()) : result.text.trim();
  return text ? `${tag} ${truncate(text, TOOL_OUTPUT_CHARS)}` : tag;
}

/**
 * How an exchange's plan calls are shown. The list is written again whole at each update, mostly to move one step
 * on: the first update is shown whole (the plan as made), the last whole (where it ended, what a person reading
 * the exchange wants to see at a glance), and each one between shows only the steps it added or moved, beside
 * the work that moved them. Results the tools always give (`Plan updated`) are left out. A call that reads the list
 * (Copilot Chat's `read`) is shown as the list its answer holds, and that answer, said by the call, left out.
 */
class PlanRendering {
  private readonly plans = new Map<ToolCall, Plan>();
  private readonly last: ToolCall | undefined;
  /** The plan calls' tools by call id, and the plan tools called. */
  private readonly toolOf = new Map<string, string>();
  private readonly tools = new Set<string>();
  /** The answers of calls that read the list, shown as those calls. */
  private readonly readAnswers = new Set<ToolResult>();
  private before: Plan | undefined;

  constructor(messages: readonly Message[]) {
    let last: ToolCall | undefined;
    let answers: Map<string, ToolResult> | undefined;
    for (const m of messages) {
      for (const call of m.toolCalls) {
        let plan = planOf(call);
        if (!plan && call.id && PLAN_READS.has(call.name)) {
          answers ??= answersById(messages);
          const answer = answers.get(call.id);
          plan = answer && !answer.isError ? readPlanOf(call, answer.text) : undefined;
          if (plan) this.readAnswers.add(answer!);
        }
        if (!plan) continue;
        this.plans.set(call, plan);
        last = call;
        this.tools.add(call.name);
        if (call.id) this.toolOf.set(call.id, call.name);
      }
    }
    this.last = last;
  }

  /** The call's plan as shown after its name, or undefined for a call that is no plan (shown as any call). */
  shown(call: ToolCall): string | undefined {
    const plan = this.plans.get(call);
    if (!plan) return undefined;
    const steps = this.before && call !== this.last ? changedSteps(plan, this.before) : plan.steps;
    this.before = plan;
    const list = checklist(steps);
    return plan.note ? (list ? `${plan.note} — ${list}` : plan.note) : list;
  }

  /**
   * Whether a result is the fixed acknowledgement of a plan call of this exchange: of its own call when it names
   * one, else (a reader that pairs no ids) of a plan tool the exchange called.
   */
  acknowledges(result: ToolResult): boolean {
    if (result.isError || this.tools.size === 0) return false;
    if (this.readAnswers.has(result)) return true;
    if (result.toolUseId !== undefined) {
      const tool = this.toolOf.get(result.toolUseId);
      return tool !== undefined && isAcknowledgement(tool, result.text);
    }
    for (const tool of this.tools) if (isAcknowledgement(tool, result.text)) return true;
    return false;
  }
}

/** The plan tools a call of which may read the list rather than write it (its answer holds the list). */
const PLAN_READS: ReadonlySet<string> = new Set(['manage_todo_list']);

/** Every result of the exchange by the call it answers. */
function answersById(messages: readonly Message[]): Map<string, ToolResult> {
  const answers = new Map<string, ToolResult>();
  for (const m of messages) for (const r of m.toolResults) if (r.toolUseId !== undefined) answers.set(r.toolUseId, r);
  return answers;
}

const NUMBER = /\d+(?:\.\d+)?/g;
const LETTER = /\p{L}/u;

/**
 * Output with each line that repeats an earlier one, numbers aside (`Retrying in 0.5 seconds...`), left out and
 * the first one marked with how many there were (`[×6]`): a retry loop's lines say nothing new, and would fill the
 * output's TOOL_OUTPUT_CHARS before the line after them (the error that ended it) is reached.
 */
export function withoutRepeatedLines(text: string): string {
  const lines = text.split('\n');
  if (lines.length < 3) return text;
  const times = new Map<string, number>();
  for (const line of lines) {
    const key = line.trim().replace(NUMBER, '0');
    times.set(key, (times.get(key) ?? 0) + 1);
  }
  if (times.size === lines.length) return text;
  const out: string[] = [];
  const shown = new Set<string>();
  for (const line of lines) {
    const key = line.trim().replace(NUMBER, '0');
    const n = times.get(key)!;
    if (n === 1 || !LETTER.test(key)) out.push(line);
    else if (!shown.has(key)) {
      shown.add(key);
      out.push(`${line}${repeatMark(n)}`);
    }
  }
  return out.join('\n');
}

const repeatMark = (n: number): string => ` [×${n}]`;
const REPEAT_MARK = / \[×\d+\]$/u;

/** A line of output as it was written, without the count withoutRepeatedLines put after it. */
export function withoutRepeatMark(line: string): string {
  return line.replace(REPEAT_MARK, '');
}

function renderMessage(m: Message, plans: PlanRendering): string {
  switch (m.kind) {
    case 'prompt':
      return `User: ${m.text.trim()}`;
    case 'context':
      return `[context] ${truncate(m.text.trim(), CONTEXT_CHARS)}`;
    case 'tool-results': {
      const lines: string[] = [];
      const text = m.text.trim();
      if (text) lines.push(truncate(text, TOOL_OUTPUT_CHARS));
      for (const r of m.toolResults) {
        const line = plans.acknowledges(r) ? '' : renderToolResult(r);
        if (line) lines.push(line);
      }
      return lines.join('\n');
    }
    case 'reply': {
      const lines: string[] = [];
      const text = m.text.trim();
      if (text) lines.push(`Assistant: ${text}`);
      for (const call of m.toolCalls) lines.push(renderToolCall(call, plans));
      return lines.join('\n');
    }
  }
}

export function renderVerbatim(messages: readonly Message[]): string {
  const plans = new PlanRendering(messages);
  // arrays from one literal each, filled in loops (renderMessage too): an empty `map` or `filter` result is another
  // array kind than a full one, and the code V8 compiled for one was dropped ("wrong map") at the first of the other
  const parts: string[] = [];
  for (const m of messages) {
    const part = renderMessage(m, plans);
    if (part.length > 0) parts.push(part);
  }
  return parts.join('\n\n');
}
