import type { VerbatimPart } from './verbatimParts';

/**
 * Claude Code's plan mode: the answer is the plan, sent as the input of an `ExitPlanMode` call
 * (`{"plan": "…markdown…"}`), and the assistant's text around it is a preamble ("I now have all the information
 * needed."). Since schema 22 the rendering shows the plan whole, as an `Assistant:` paragraph right after the call's
 * line `[tool] ExitPlanMode` (render.ts `said`); before, only the call's JSON `[tool] ExitPlanMode {"plan":"…"}`, cut
 * to TOOL_INPUT_CHARS, which this reads the plan's text back out of (a store whose transcript is gone keeps it).
 * Either way the plan counts as the answer.
 */

const PLAN_CALL_RE = /^ExitPlanMode\s+\{.*?"plan":"/su;
const PLAN_TOOL_RE = /^ExitPlanMode(?:\s|$)/u;

/**
 * The parts with the plan of an exchange's last `ExitPlanMode` call marked as its answer (`plan`), when nothing the
 * assistant said follows it (a plan approved and then carried out ends in what was done, not in the plan): the
 * assistant part after the call, or one read out of the call's JSON and put after it. The parts unchanged when there
 * is none.
 */
export function withPlanAsAnswer(parts: readonly VerbatimPart[]): readonly VerbatimPart[] {
  for (let i = parts.length - 1; i >= 0; i--) {
    const part = parts[i]!;
    if (part.kind === 'assistant') {
      const call = parts[i - 1];
      const shown = call?.kind === 'tool' && PLAN_TOOL_RE.test(call.text) && planText(call.text) === undefined;
      return shown ? [...parts.slice(0, i), { kind: part.kind, text: part.text, plan: true }, ...parts.slice(i + 1)] : parts;
    }
    if (part.kind !== 'tool') continue;
    const plan = planText(part.text);
    if (plan === undefined) continue;
    return [...parts.slice(0, i + 1), { kind: 'assistant', text: plan, plan: true }, ...parts.slice(i + 1)];
  }
  return parts;
}

/** The plan of a rendered `ExitPlanMode` call, its JSON string decoded up to where it ends or was cut; undefined when it has none. */
export function planText(call: string): string | undefined {
  const open = PLAN_CALL_RE.exec(call);
  if (!open) return undefined;
  let out = '';
  for (let i = open[0].length; i < call.length; i++) {
    const c = call[i]!;
    if (c === '"') break;
    if (c !== '\\') {
      out += c;
      continue;
    }
    const e = call[++i];
    if (e === undefined) break;
    if (e === 'u') {
      const hex = call.slice(i + 1, i + 5);
      if (!/^[0-9a-f]{4}$/iu.test(hex)) break;
      out += String.fromCharCode(parseInt(hex, 16));
      i += 4;
    } else out += ESCAPES[e] ?? e;
  }
  const text = out.trim();
  return /\p{L}/u.test(text) ? text : undefined;
}

const ESCAPES: Readonly<Record<string, string>> = { n: '\n', t: '\t', r: '\r', b: '\b', f: '\f' };
