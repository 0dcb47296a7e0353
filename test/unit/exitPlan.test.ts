import assert from 'node:assert/strict';
import { test } from 'node:test';
import { planText, withPlanAsAnswer } from '../../src/core/distill/exitPlan';
import { distillOffline } from '../../src/core/distill/offline';
import { splitVerbatim } from '../../src/core/distill/verbatimParts';
import { englishRarity } from '../../src/core/distill/wordRarity';
import { DEFAULT_SEGMENT_OPTIONS, segmentConversation } from '../../src/core/segment';
import { claudeCodeAdapter } from '../../src/core/sources/claudeCode';
import { parsesAsJson, splitLines } from '../../src/core/sources/lines';
import type { DistillInput } from '../../src/core/model';

const PLAN = [
  '# Implementation Plan: Native Messaging for the Helium Browser',
  '',
  '## Overview',
  '',
  "Reuse Claude Code's native host by linking its manifest `com.anthropic.claude_code_browser_extension.json` into Helium's `NativeMessagingHosts` directory.",
  '',
  '## Steps',
  '',
  '1. Create the symlink',
].join('\n');

/** A Claude Code plan-mode session as its jsonl holds it: the prompt, research, a preamble, then the plan in `ExitPlanMode`. */
function planSession(afterPlan: readonly object[] = []): DistillInput {
  let uuid = 0;
  const base = { sessionId: 's-plan', cwd: '/home/dev/helium', version: '2.0.76', timestamp: '2025-12-30T10:00:00.000Z' };
  const rec = (type: string, message: object): object => ({ ...base, type, uuid: `u${++uuid}`, message });
  const records = [
    rec('user', { role: 'user', content: "plan to reuse Claude Code's native messaging host manifest for the Helium browser" }),
    rec('assistant', { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'ls ~/.config/net.imput.helium' } }] }),
    rec('user', { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'NativeMessagingHosts' }] }),
    rec('assistant', { role: 'assistant', content: [{ type: 'text', text: 'Perfect! I now have all the information needed. Let me write the final implementation plan:' }] }),
    rec('assistant', { role: 'assistant', content: [{ type: 'tool_use', id: 't2', name: 'ExitPlanMode', input: { plan: PLAN } }] }),
    ...afterPlan.map((m) => rec((m as { role: string }).role, m)),
  ];
  const chunk = splitLines(Buffer.from(records.map((r) => JSON.stringify(r)).join('\n') + '\n'), 0, 1, { holdBackPartial: true, isComplete: parsesAsJson });
  const conv = claudeCodeAdapter.parse({ file: '/home/dev/.claude/projects/-home-dev-helium/s-plan.jsonl', lines: chunk.lines }).conversations[0]!;
  const exchange = segmentConversation(conv, DEFAULT_SEGMENT_OPTIONS).exchanges[0]!;
  return { n: 1, exchangeId: exchange.id, agent: 'claude-code', plyStart: 0, plyEnd: 1, prompt: exchange.prompt, verbatim: exchange.verbatim, filesTouched: [] };
}

test('a plan-mode exchange reads as its plan, not as the preamble before ExitPlanMode', () => {
  const input = planSession();
  // the plan is the assistant's words after the call's line, whole; the call keeps no JSON of it
  assert.ok(input.verbatim.endsWith(`[tool] ExitPlanMode\n\nAssistant: ${PLAN}`), input.verbatim);
  const out = distillOffline(input, englishRarity());
  assert.match(out.exchangeCore, / → Implementation Plan: Native Messaging for the Helium Browser$/u, out.exchangeCore);
  assert.doesNotMatch(out.exchangeCore, /information needed/u);
  assert.ok(out.exchangeCore.length <= 140);
});

test('a plan approved and carried out in the same exchange ends in what was done', () => {
  const input = planSession([
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't2', content: 'User has approved your plan. You can now start coding.' }] },
    { role: 'assistant', content: [{ type: 'text', text: 'I linked the manifest into the Helium NativeMessagingHosts directory; the extension now connects to the native host.' }] },
  ]);
  const out = distillOffline(input, englishRarity());
  assert.match(out.exchangeCore, /→ I linked the manifest into the Helium NativeMessagingHosts directory/u, out.exchangeCore);
});

test('planText decodes the JSON string of the call, up to where the rendering cut it', () => {
  assert.equal(planText('ExitPlanMode {"plan":"# Title\\n\\nUse `a \\"b\\"` \\u00e9t\\u00e9"}'), '# Title\n\nUse `a "b"` été');
  // cut by the rendering (the cut word became a space): the plan so far
  assert.equal(planText('ExitPlanMode {"plan":"# Title\\n\\nLink the manifest into '), '# Title\n\nLink the manifest into');
  assert.equal(planText('ExitPlanMode {}'), undefined);
  assert.equal(planText('Write {"plan":"# Title"}'), undefined);
  // a plan after another key
  assert.equal(planText('ExitPlanMode {"allowedPrompts":[],"plan":"Fix the retry loop."}'), 'Fix the retry loop.');
});

test('without a plan the parts are the same object', () => {
  const parts = splitVerbatim('User: hi\n\nAssistant: Hello.\n[tool] ExitPlanMode {}');
  assert.equal(withPlanAsAnswer(parts), parts);
});

test('a plan longer than a tool input is kept whole, the other tool inputs cut as before', () => {
  const steps = Array.from({ length: 40 }, (_, i) => `${i + 1}. Link manifest ${i + 1} into the NativeMessagingHosts directory`);
  const long = [PLAN, ...steps, '', '## Verification', '', 'Open Helium and check the extension connects.'].join('\n');
  assert.ok(long.length > 2_000);
  let uuid = 0;
  const base = { sessionId: 's-long', cwd: '/home/dev/helium', version: '2.0.76', timestamp: '2025-12-30T10:00:00.000Z' };
  const rec = (type: string, message: object): object => ({ ...base, type, uuid: `u${++uuid}`, message });
  const command = `echo ${'x'.repeat(500)}`;
  const records = [
    rec('user', { role: 'user', content: 'plan the Helium native messaging link' }),
    rec('assistant', { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: { command } }] }),
    rec('user', { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'ok' }] }),
    rec('assistant', { role: 'assistant', content: [{ type: 'tool_use', id: 't2', name: 'ExitPlanMode', input: { plan: long, allowedPrompts: [] } }] }),
  ];
  const chunk = splitLines(Buffer.from(records.map((r) => JSON.stringify(r)).join('\n') + '\n'), 0, 1, { holdBackPartial: true, isComplete: parsesAsJson });
  const conv = claudeCodeAdapter.parse({ file: '/p/s-long.jsonl', lines: chunk.lines }).conversations[0]!;
  const { verbatim } = segmentConversation(conv, DEFAULT_SEGMENT_OPTIONS).exchanges[0]!;
  // the call's other input stays on its line; the plan, 2,000+ characters, follows it whole
  assert.ok(verbatim.endsWith(`[tool] ExitPlanMode {"allowedPrompts":[]}\n\nAssistant: ${long}`), verbatim.slice(-400));
  // a long command is still cut to TOOL_INPUT_CHARS
  assert.match(verbatim, /\[tool\] Bash echo x+… \[205 more chars\]/u);
  // the plan is the last assistant part, marked as the answer
  const parts = withPlanAsAnswer(splitVerbatim(verbatim));
  assert.equal(parts.at(-1)!.plan, true);
  assert.ok(parts.at(-1)!.text.endsWith('Open Helium and check the extension connects.'));
});

test('a store rendered before schema 22 (the plan in the call\'s JSON, cut) still reads its plan', () => {
  const parts = withPlanAsAnswer(splitVerbatim('User: plan it\n\nAssistant: I have what I need.\n[tool] ExitPlanMode {"plan":"# Plan: Link the manifest\\n\\nFirst the steps… [400 more chars]'));
  assert.equal(parts.at(-1)!.plan, true);
  assert.match(parts.at(-1)!.text, /^# Plan: Link the manifest/u);
});
