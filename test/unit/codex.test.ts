import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { extractFiles } from '../../src/core/files';
import type { Conversation, ConversationMeta } from '../../src/core/model';
import { renderVerbatim } from '../../src/core/render';
import type { ParseOutput } from '../../src/core/sources/adapter';
import { codexAdapter } from '../../src/core/sources/codex';
import { type LineChunk, parsesAsJson, type SourceLine, splitLines } from '../../src/core/sources/lines';

const DIR = path.resolve(__dirname, '../../../test/fixtures/codex');
const ENVELOPE = path.join(DIR, 'envelope.jsonl');
const LEGACY = path.join(DIR, 'legacy.jsonl');

function read(file: string): LineChunk {
  return splitLines(readFileSync(file), 0, 1, { holdBackPartial: true, isComplete: parsesAsJson });
}

function parse(file: string, lines: readonly SourceLine[] = read(file).lines, resume?: ConversationMeta): ParseOutput {
  return codexAdapter.parse({ file, lines, ...(resume ? { resume } : {}) });
}

function only(out: ParseOutput): Conversation {
  assert.equal(out.conversations.length, 1);
  return out.conversations[0]!;
}

function shape(conv: Conversation): string[] {
  return conv.messages.map((m) => `${m.kind} ${m.line}-${m.lineEnd}`);
}

/** Claude Code records: `type` user/assistant/summary with sessionId/uuid. */
const CLAUDE_HEAD = [
  '{"type":"summary","summary":"Fix alerts","leafUuid":"u-9"}',
  '{"type":"user","uuid":"u-1","parentUuid":null,"sessionId":"s-1","cwd":"/home/dev/tidepool","message":{"role":"user","content":"hi"}}',
];

function lines(texts: readonly string[]): SourceLine[] {
  return splitLines(Buffer.from(texts.join('\n') + '\n'), 0, 1, { holdBackPartial: false }).lines;
}

test('envelope layout: messages, kinds and line ranges from response items only', () => {
  const chunk = read(ENVELOPE);
  assert.equal(chunk.heldBackPartial, true, 'the unterminated last line waits for its writer');
  assert.equal(chunk.lines.length, 25);
  const conv = only(parse(ENVELOPE, chunk.lines));
  assert.deepEqual(shape(conv), [
    'prompt 5-5',
    'reply 9-9',
    'tool-results 10-10',
    'reply 12-12',
    'tool-results 13-13',
    'reply 15-15',
    'tool-results 16-16',
    'reply 18-18',
    'context 20-20',
    'prompt 21-21',
    'reply 22-23',
    'tool-results 24-24',
    'reply 25-25',
  ]);
  const [prompt, , , , , , , fixed, compacted, second, merged] = conv.messages;
  assert.equal(prompt!.text, 'The tide alert fires at 1.9 m although the threshold is 2.0 m. Fix the comparison in the alert rules.');
  assert.equal(prompt!.role, 'user');
  assert.equal(prompt!.timestamp, '2025-11-03T09:14:09.000Z');
  assert.equal(prompt!.offset, chunk.lines[4]!.offset);
  assert.match(fixed!.text, /^Fixed the comparison in `src\/alerts\/rules.py`/);
  assert.equal(fixed!.role, 'assistant');
  assert.match(compacted!.text, /^Summary: the alert threshold comparison/);
  assert.equal(second!.text, 'Update that test to expect an alert at exactly 2.0 m, like in this screenshot.\n[image]');
  // An assistant message and the shell call right after it are one reply.
  assert.equal(merged!.text, "I'll update the assertion and run the suite.");
  assert.equal(merged!.timestamp, '2025-11-03T09:41:33.000Z');
});

test('envelope layout: tool calls with parsed arguments, patches as text, outputs with error flags', () => {
  const conv = only(parse(ENVELOPE));
  const calls = conv.messages.flatMap((m) => m.toolCalls);
  assert.deepEqual(calls[0], {
    id: 'call_A1',
    name: 'shell_command',
    input: { command: 'rg -n "threshold" src/alerts', workdir: '/home/dev/tidepool' },
  });
  assert.equal(calls[1]!.name, 'apply_patch');
  assert.equal(calls[1]!.id, 'call_B2');
  assert.match(calls[1]!.input as string, /^\*\*\* Update File: src\/alerts\/rules.py$/m);
  assert.deepEqual(calls[3], {
    id: 'call_D4',
    name: 'local_shell',
    input: { type: 'exec', command: ['uv', 'run', 'pytest', '-q'], working_directory: '/home/dev/tidepool' },
  });
  assert.equal(calls.length, 4);

  const results = conv.messages.flatMap((m) => m.toolResults);
  assert.deepEqual(
    results.map((r) => [r.toolUseId, r.isError]),
    [['call_A1', false], ['call_B2', false], ['call_C3', true], ['call_D4', false]],
  );
  // `{output, metadata}` JSON is unwrapped to the output text.
  assert.equal(results[1]!.text, 'Success. Updated the following files:\nM src/alerts/rules.py\n');
  assert.equal(results[3]!.text, '8 passed in 0.41s\n');
  // Codex's header above a command's output (wall time, `Output:`) is not the output; a failing exit code stays.
  assert.equal(results[0]!.text, 'src/alerts/rules.py:14:    if level > threshold - 0.1:\n');
  assert.equal(results[2]!.text, 'Exit code: 1\nFAILED tests/test_rules.py::test_exact_threshold\n1 failed, 7 passed\n');

  const files = extractFiles(conv.messages, { cwd: conv.meta.project! });
  assert.deepEqual(files.find((f) => f.path === 'src/alerts/rules.py'), { path: 'src/alerts/rules.py', how: 'edit' });
});

test('newer command outputs: the exec header is left out, the exit code of either form flags a failure', () => {
  const conv = only(parse(path.join(DIR, 'exec-output.jsonl')));
  const results = conv.messages.flatMap((m) => m.toolResults);
  assert.deepEqual(results, [
    {
      toolUseId: 'call_E1',
      text: "Exit code: 2\nTraceback (most recent call last):\n  File \"export.py\", line 41, in <module>\nKeyError: 'station_id'\n",
      isError: true,
    },
    // still running (unified exec): what it printed so far, no failure
    { toolUseId: 'call_E2', text: 'export started for 41 stations\n', isError: false },
    { toolUseId: 'call_E3', text: 'src/export.py:3\nsrc/schema.py:1\n', isError: false },
    { toolUseId: 'call_E4', text: '', isError: false },
    // content parts (newer versions) are unwrapped alike
    { toolUseId: 'call_E5', text: 'stations  tides\n', isError: false },
  ]);
  const verbatim = renderVerbatim(conv.messages);
  assert.doesNotMatch(verbatim, /Wall time|Chunk ID|token count|Output:|Process (?:exited|running)|output lines/);
  assert.match(verbatim, /^\[error\] Exit code: 2$/m);
});

test('envelope layout: meta from session_meta and turn_context; bad lines counted, event_msg and injected ones not', () => {
  const out = parse(ENVELOPE);
  assert.deepEqual(only(out).meta, {
    agent: 'codex',
    sessionId: '5f0c2e1a-7b3d-4c9e-8a21-3d9f6e4b7c10',
    line: 1,
    isSubagent: false,
    project: '/home/dev/tidepool',
    gitBranch: 'feature/tide-alerts',
    startedAt: '2025-11-03T09:14:01.870Z',
    model: 'gpt-5.1-codex',
  });
  assert.deepEqual(out.skipped, [
    { line: 14, reason: 'malformed-json' },
    { line: 17, reason: 'unknown-record' },
  ]);
  const texts = only(out).messages.map((m) => m.text).join('\n');
  assert.doesNotMatch(texts, /environment_context|AGENTS\.md|permissions instructions|Locating the threshold/);
});

test('legacy layout: header id, cwd from the injected environment context, state lines ignored', () => {
  const out = parse(LEGACY);
  const conv = only(out);
  assert.deepEqual(out.skipped, []);
  assert.deepEqual(conv.meta, {
    agent: 'codex',
    sessionId: 'a1b2c3d4-0e5f-4a6b-8c7d-9e0f1a2b3c4d',
    line: 1,
    isSubagent: false,
    project: '/home/dev/tidepool',
    gitBranch: 'main',
    startedAt: '2025-08-21T14:02:11.512Z',
  });
  assert.deepEqual(shape(conv), [
    'prompt 6-6',
    'reply 9-9',
    'tool-results 10-10',
    'reply 12-12',
    'prompt 14-14',
    'reply 15-15',
    'tool-results 16-16',
    'reply 17-17',
  ]);
  assert.deepEqual(
    conv.messages.filter((m) => m.kind === 'prompt').map((m) => m.text),
    ['Why does `tidepool sync` hang when the gauge API times out?', 'Do it.'],
  );
  assert.equal(conv.messages[0]!.timestamp, undefined, 'legacy items carry no timestamps');
  assert.deepEqual(conv.messages[1]!.toolCalls[0]!.input, {
    command: ['bash', '-lc', 'rg -n "session.get" src/tidepool/sync.py'],
    timeout_ms: 10000,
  });
  assert.deepEqual(conv.messages[2]!.toolResults, [
    { toolUseId: 'call_x1', text: 'src/tidepool/sync.py:41:    resp = session.get(url)\n', isError: false },
  ]);
  const files = extractFiles(conv.messages, { cwd: conv.meta.project! });
  assert.deepEqual(files.find((f) => f.path === 'src/tidepool/sync.py'), { path: 'src/tidepool/sync.py', how: 'edit' });
});

test('sniff accepts both Codex layouts and rejects Claude Code records', () => {
  assert.equal(codexAdapter.sniff(read(ENVELOPE).lines.slice(0, 3)), true);
  assert.equal(codexAdapter.sniff(read(LEGACY).lines.slice(0, 3)), true);
  assert.equal(codexAdapter.sniff(lines(CLAUDE_HEAD)), false);
  assert.equal(codexAdapter.sniff(lines(['not json', '[1,2]'])), false);
  assert.equal(codexAdapter.sniff([]), false);
});

test('probeProject reads session_meta, turn_context or the environment context', () => {
  assert.equal(codexAdapter.probeProject(read(ENVELOPE).lines), '/home/dev/tidepool');
  assert.equal(codexAdapter.probeProject(read(LEGACY).lines), '/home/dev/tidepool');
  assert.equal(
    codexAdapter.probeProject(lines(['{"timestamp":"t","type":"turn_context","payload":{"cwd":"/srv/gauges","model":"m"}}'])),
    '/srv/gauges',
  );
  assert.equal(
    codexAdapter.probeProject(
      lines(['{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>\\nCurrent working directory: /srv/old\\n</environment_context>"}]}']),
    ),
    '/srv/old',
  );
  assert.equal(codexAdapter.probeProject(lines(CLAUDE_HEAD)), undefined);
});

test('a resumed parse keeps the identity it was given and starts at the resume line', () => {
  const full = only(parse(ENVELOPE));
  const tail = read(ENVELOPE).lines.slice(20); // from line 21, the second prompt
  const resumed = only(parse(ENVELOPE, tail, full.meta));
  assert.deepEqual(resumed.meta, full.meta);
  assert.deepEqual(shape(resumed), ['prompt 21-21', 'reply 22-23', 'tool-results 24-24', 'reply 25-25']);
});

test('a rollout without a header is named by the uuid in its file name', () => {
  const file = '/home/dev/.codex/sessions/2025/11/03/rollout-2025-11-03T09-14-01-0a1b2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5d.jsonl';
  const conv = only(codexAdapter.parse({ file, lines: read(ENVELOPE).lines.slice(4, 10) }));
  assert.equal(conv.meta.sessionId, '0a1b2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5d');
  assert.equal(conv.meta.line, 5);
  assert.equal(conv.meta.startedAt, '2025-11-03T09:14:09.000Z');
});

test('never throws on hostile lines; each bad line is counted once', () => {
  const out = codexAdapter.parse({
    file: '/tmp/x.jsonl',
    lines: lines([
      '[]',
      '"text"',
      '{}',
      '{"type":5}',
      '{"type":"response_item","payload":null}',
      '{"type":"response_item","payload":{"type":"message","role":"user","content":"plain string prompt"}}',
      '{"type":"response_item","payload":{"type":"function_call_output","call_id":7,"output":{"content":"denied","success":false}}}',
      '{"type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{not json"}}',
      '',
    ]),
  });
  assert.deepEqual(out.skipped.map((s) => `${s.line}:${s.reason}`), [
    '1:not-an-object',
    '2:not-an-object',
    '3:unknown-record',
    '4:unknown-record',
    '5:unknown-record',
  ]);
  const conv = only(out);
  assert.deepEqual(shape(conv), ['prompt 6-6', 'tool-results 7-7', 'reply 8-8']);
  assert.equal(conv.messages[0]!.text, 'plain string prompt');
  assert.deepEqual(conv.messages[1]!.toolResults, [{ text: 'denied', isError: true }]);
  assert.deepEqual(conv.messages[2]!.toolCalls, [{ name: 'shell', input: '{not json' }]);
  assert.equal(conv.meta.sessionId, 'x');
});
