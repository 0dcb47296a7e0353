import type { VerbatimPart } from './verbatimParts';

/**
 * Claude Code's plan mode: the answer is the plan, sent as the input of an `ExitPlanMode` call
 * (`{"plan": "…markdown…"}`), and the assistant's text around it is a preamble ("I now have all the information
 * needed."). The rendering shows the call as `[tool] ExitPlanMode {"plan":"…"}` (its JSON, cut to
 * TOOL_INPUT_CHARS); this reads the plan's text back out of it, so the plan counts as the answer.
 */

const PLAN_CALL_RE = /^ExitPlanMode\s+\{.*?"plan":"/su;

/**
 * The parts with the plan of an exchange's last `ExitPlanMode` call after it as an assistant part (`plan`
 * marked), when nothing the assistant said follows the call (a plan approved and then carried out ends in
 * what was done, not in the plan). The parts unchanged when there is none.
 */
export function withPlanAsAnswer(parts: readonly VerbatimPart[]): readonly VerbatimPart[] {
  for (let i = parts.length - 1; i >= 0; i--) {
    const part = parts[i]!;
    if (part.kind === 'assistant') return parts;
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
