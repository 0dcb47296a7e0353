import type { ToolCall } from './model';

/**
 * The agents' own to-do lists (Claude Code's `TodoWrite`, Codex's `update_plan`, Gemini CLI's `write_todos`,
 * Copilot Chat's `manage_todo_list`, Qwen Code's `todo_write`, OpenCode's `todowrite`, Roo Code's and Kilo Code's
 * `update_todo_list`): each call writes the whole list again with each step's state, and most tools answer with a
 * fixed acknowledgement. Rendered as raw JSON they
 * filled an exchange with keys, state words and the `activeForm` duplicate of every step, cut at 300 characters,
 * once per update. Here a call is read as its steps, shown as a checklist a person reads at a glance (render.ts),
 * and the acknowledgements known word for word are recognised.
 */

export type StepState = 'done' | 'active' | 'open' | 'dropped';

export interface PlanStep {
  readonly text: string;
  readonly state: StepState;
}

export interface Plan {
  /** What the agent said with the update (Codex's `explanation`), or undefined. */
  readonly note?: string;
  readonly steps: readonly PlanStep[];
}

/** The plan tools by name (one name is one tool in every agent that has it). */
export const PLAN_TOOLS: ReadonlySet<string> = new Set([
  'TodoWrite',
  'update_plan',
  'write_todos',
  'manage_todo_list',
  'todo_write',
  'todowrite',
  'update_todo_list',
]);

/** The mark a step's state is shown with, and back. */
export const STEP_MARKS: Readonly<Record<StepState, string>> = { done: '✓', active: '▸', open: '○', dropped: '✗' };
export const STEP_SEPARATOR = ' · ';

/** Each tool's word for a state (Claude Code, Codex and Gemini CLI write `in_progress`, Copilot Chat `in-progress`). */
const STATES: ReadonlyMap<string, StepState> = new Map([
  ['completed', 'done'],
  ['in_progress', 'active'],
  ['in-progress', 'active'],
  ['pending', 'open'],
  ['not-started', 'open'],
  ['cancelled', 'dropped'],
]);

/** Where each tool keeps its list, and each step's words (Copilot's `description` is a longer note: its `title` first). */
const LIST_KEYS = ['todos', 'plan', 'todoList'];
const TEXT_KEYS = ['content', 'step', 'title', 'description'];

/**
 * The plan a call writes, or undefined when it is no plan call or its input is not a list of steps this knows
 * (an unknown state, a step without words, Copilot's `read` operation): such a call is shown as before.
 */
export function planOf(call: ToolCall): Plan | undefined {
  if (!PLAN_TOOLS.has(call.name)) return undefined;
  const input = call.input;
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return undefined;
  const rec = input as Record<string, unknown>;
  // Roo Code's and Kilo Code's list is one markdown checklist
  if (call.name === ROO_TOOL) return typeof rec['todos'] === 'string' ? rooPlan(rec['todos']) : undefined;
  // Copilot's `read` writes nothing (its answer is the list: readPlanOf); a call that merges its steps into the list (Cursor's `todo_write`) is no whole list
  if ((rec['operation'] !== undefined && rec['operation'] !== 'write') || rec['merge'] === true) return undefined;
  const list = LIST_KEYS.map((k) => rec[k]).find(Array.isArray);
  if (!list) return undefined;
  const steps: PlanStep[] = [];
  for (const item of list) {
    if (typeof item !== 'object' || item === null) return undefined;
    const step = item as Record<string, unknown>;
    const text = TEXT_KEYS.map((k) => step[k]).find((v): v is string => typeof v === 'string' && v.trim().length > 0);
    const state = typeof step['status'] === 'string' ? STATES.get(step['status']) : undefined;
    if (text === undefined || state === undefined) return undefined;
    steps.push({ text: oneLine(text), state });
  }
  const note = typeof rec['explanation'] === 'string' && rec['explanation'].trim() ? oneLine(rec['explanation']) : undefined;
  return note ? { note, steps } : { steps };
}

/**
 * Roo Code's `update_todo_list` (and Kilo Code's, its fork): `todos` is one markdown checklist, a step a line, `[ ]`
 * pending, `[x]` completed, `[-]` (or `[~]`) in progress, a leading `- ` allowed; other lines are no steps
 * (parseMarkdownChecklist in RooCodeInc/Roo-Code and Kilo-Org/kilocode-legacy, src/core/tools/UpdateTodoListTool.ts).
 */
const ROO_TOOL = 'update_todo_list';
const ROO_LINE_RE = /^(?:-\s*)?\[\s*([ xX\-~])\s*\]\s+(.+)$/u;
/** A markdown checkbox's mark and its step's state (Roo Code's and Copilot Chat's lists; Copilot writes `[ ]`, `[x]`, `[-]` only). */
const BOXES: ReadonlyMap<string, StepState> = new Map([
  [' ', 'open'],
  ['x', 'done'],
  ['X', 'done'],
  ['-', 'active'],
  ['~', 'active'],
]);

/** The steps of Roo Code's checklist, lines that are no step passed over (as Roo does); undefined when none is. */
function rooPlan(text: string): Plan | undefined {
  const steps: PlanStep[] = [];
  for (const line of text.split(/\r?\n/u)) {
    const m = ROO_LINE_RE.exec(line.trim());
    if (m) steps.push({ text: oneLine(m[2]!), state: BOXES.get(m[1]!)! });
  }
  return steps.length > 0 ? { steps } : undefined;
}

/**
 * Copilot Chat's `manage_todo_list` `read` writes nothing: its answer is the list as it stands, word for word
 * `# Todo List`, a blank line, then a line a step (`- [x] title`, `[-]` in progress, `[ ]` not started), each
 * step's description, when it has one, on the line below (`  - description`) (handleRead in microsoft/vscode,
 * src/vs/workbench/contrib/chat/common/tools/builtinTools/manageTodoListTool.ts). The plan that answer holds, or
 * undefined when the call is no such read or its answer is not in that form (`No todo list found.`, an error).
 */
export function readPlanOf(call: ToolCall, answer: string): Plan | undefined {
  if (call.name !== 'manage_todo_list') return undefined;
  const input = call.input;
  if (typeof input !== 'object' || input === null || (input as Record<string, unknown>)['operation'] !== 'read') return undefined;
  const lines = answer.trimEnd().split('\n');
  if (lines[0] !== '# Todo List' || lines[1] !== '' || lines.length < 3) return undefined;
  const steps: PlanStep[] = [];
  for (const line of lines.slice(2)) {
    const step = COPILOT_STEP_RE.exec(line);
    if (step) steps.push({ text: step[2]!.trim(), state: BOXES.get(step[1]!)! });
    else if (!(steps.length > 0 && line.startsWith(COPILOT_NOTE))) return undefined;
  }
  return { steps };
}
const COPILOT_STEP_RE = /^- \[([ x-])\] ([^\n]*\S[^\n]*)$/u;
/** A step's description, on the line below it. */
const COPILOT_NOTE = '  - ';

/** The steps as a checklist line: `✓ Download the icon · ▸ Convert it to .icns · ○ Build the app`. */
export function checklist(steps: readonly PlanStep[]): string {
  return steps.map((s) => `${STEP_MARKS[s.state]} ${s.text}`).join(STEP_SEPARATOR);
}

/** The steps of `plan` that are new or changed state since `before` (the same list written again). */
export function changedSteps(plan: Plan, before: Plan): PlanStep[] {
  const was = new Map(before.steps.map((s) => [s.text, s.state]));
  return plan.steps.filter((s) => was.get(s.text) !== s.state);
}

const MARK_OF = new Map(Object.entries(STEP_MARKS).map(([state, mark]) => [mark, state as StepState]));
const STEP_RE = new RegExp(`(?:^|${STEP_SEPARATOR}| — )([${Object.values(STEP_MARKS).join('')}]) (.+?)(?=${STEP_SEPARATOR}[${Object.values(STEP_MARKS).join('')}] |$)`, 'gu');

/** The steps of a checklist line (checklist()'s text, or the rest of a rendered plan call), in order. */
export function stepsOfChecklist(line: string): PlanStep[] {
  const steps: PlanStep[] = [];
  for (const m of line.matchAll(STEP_RE)) steps.push({ text: m[2]!, state: MARK_OF.get(m[1]!)! });
  return steps;
}

/**
 * The plan tools' fixed acknowledgements, word for word as the corpus holds them (177 of 177 `TodoWrite` results,
 * 38 of 39 `update_plan` results; the 39th, an argument error, says something else and stays): they say nothing
 * the call does not. Gemini CLI's repeats the list the call wrote, after a fixed line (7 of 7 `write_todos`).
 * Copilot Chat's is its source's (`manage_todo_list`'s write, vscode-copilot-chat; with a warning after it, it says
 * more and stays). Roo Code's and Kilo Code's is their source's (UpdateTodoListTool.ts; "User edits todo:" with the
 * list the person edited says more and stays). Qwen Code's and OpenCode's answers are not known from a transcript
 * here and stay.
 */
const ACKNOWLEDGEMENTS: ReadonlyMap<string, (text: string) => boolean> = new Map([
  [
    'TodoWrite',
    (t: string) =>
      t === 'Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable',
  ],
  ['update_plan', (t: string) => t === 'Plan updated'],
  ['write_todos', (t: string) => GEMINI_ACK_RE.test(t)],
  ['manage_todo_list', (t: string) => t === 'Successfully wrote todo list'],
  ['update_todo_list', (t: string) => t === 'Todo list updated successfully.'],
]);
const GEMINI_ACK_RE = /^Successfully updated the todo list\. The current list is now:(?:\n\d+\. \[(?:pending|in_progress|completed|cancelled)\] [^\n]*)*$/u;

/** Whether a result of `tool` is its fixed acknowledgement, which says nothing the call does not. */
export function isAcknowledgement(tool: string, text: string): boolean {
  return ACKNOWLEDGEMENTS.get(tool)?.(text.trim()) ?? false;
}

function oneLine(s: string): string {
  return s.replace(/\s*\n\s*/g, ' ').trim();
}
