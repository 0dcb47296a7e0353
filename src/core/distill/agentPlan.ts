import { PLAN_TOOLS, stepsOfChecklist } from '../planCalls';
import type { VerbatimPart } from './verbatimParts';

/**
 * The agent's own to-do list, as its plan tool last wrote it (Claude Code's `TodoWrite`, Codex's `update_plan`,
 * Gemini CLI's `write_todos`, Copilot Chat's `manage_todo_list`, Roo Code's `update_todo_list`, the others of
 * PLAN_TOOLS): the steps it marked done say what an exchange without an answer did ("Stop gl_screen service to
 * eliminate log spam"), where its first tool error ("Command failed: cygpath…", retried and passed) says nothing of it. A plan call is rendered as a checklist (render.ts:
 * `✓ step · ▸ step`); one whose input was no list of steps as its JSON, cut, which is read too.
 */

/** One step of a plan in JSON, whole: a step the rendering cut short is left out. */
const STEP_RE = /\{[^{}]*\}/gu;
const TEXT_RE = /"(?:content|step|description)"\s*:\s*"((?:[^"\\]|\\.)+)"/u;
const DONE_RE = /"status"\s*:\s*"completed"/u;

/** The steps marked done in the last plan call that has any, in their order; [] when there is none. */
export function completedSteps(parts: readonly VerbatimPart[]): string[] {
  for (let i = parts.length - 1; i >= 0; i--) {
    const part = parts[i]!;
    if (part.kind !== 'tool' || !PLAN_TOOLS.has(part.text.split(/\s/u, 1)[0]!)) continue;
    const args = part.text.replace(/^\S+\s*/u, '');
    const done = args.startsWith('{') ? completedInJson(args) : stepsOfChecklist(args).filter((s) => s.state === 'done').map((s) => s.text);
    if (done.length > 0) return done;
  }
  return [];
}

function completedInJson(json: string): string[] {
  const done: string[] = [];
  for (const m of json.matchAll(STEP_RE)) {
    const text = TEXT_RE.exec(m[0])?.[1];
    if (text && DONE_RE.test(m[0])) done.push(unescape(text));
  }
  return done;
}

function unescape(json: string): string {
  try {
    return JSON.parse(`"${json}"`) as string;
  } catch {
    return json;
  }
}
