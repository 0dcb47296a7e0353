import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import type { Conversation, Message } from '../../src/core/model';
import { DEFAULT_SEGMENT_OPTIONS, segmentConversation } from '../../src/core/segment';
import type { ParseInput, ParseOutput } from '../../src/core/sources/adapter';
import { claudeCodeAdapter } from '../../src/core/sources/claudeCode';
import { type LineChunk, parsesAsJson, type SourceLine, splitLines } from '../../src/core/sources/lines';

const DIR = path.resolve(__dirname, '../../../test/fixtures/claude-code');
const SESSION = '5f0c2a6e-7b1d-4c3e-9a8f-1d2e3f4a5b6c';

function linesOf(buf: Buffer): LineChunk {
  return splitLines(buf, 0, 1, { holdBackPartial: true, isComplete: parsesAsJson });
}

function load(name: string): { file: string; chunk: LineChunk } {
  const file = path.join(DIR, name);
  return { file, chunk: linesOf(readFileSync(file)) };
}

function parse(name: string, extra: Partial<ParseInput> = {}): ParseOutput & { conv: Conversation; chunk: LineChunk } {
  const { file, chunk } = load(name);
  const out = claudeCodeAdapter.parse({ file, lines: chunk.lines, ...extra });
  assert.equal(out.conversations.length, 1);
  return { ...out, conv: out.conversations[0]!, chunk };
}

/** `kind@line-lineEnd`: the shape of a parse at a glance. */
function shape(messages: readonly Message[]): string[] {
  return messages.map((m) => `${m.kind}@${m.line}-${m.lineEnd}`);
}

function jsonLines(records: readonly object[]): SourceLine[] {
  return linesOf(Buffer.from(records.map((r) => JSON.stringify(r)).join('\n') + '\n')).lines;
}

test('matchesPath takes .jsonl files only', () => {
  assert.equal(claudeCodeAdapter.matchesPath('/home/dev/.claude/projects/-home-dev-tidepool/abc.jsonl'), true);
  assert.equal(claudeCodeAdapter.matchesPath('/home/dev/tidepool/.aider.chat.history.md'), false);
  assert.equal(claudeCodeAdapter.matchesPath('/home/dev/notes.json'), false);
});

test('sniff accepts Claude Code heads and rejects Codex rollouts', () => {
  for (const name of ['split-reply.jsonl', 'resume-replay.jsonl', 'wrappers.jsonl', 'agent-5d2e8f01.jsonl']) {
    assert.equal(claudeCodeAdapter.sniff(load(name).chunk.lines), true, name);
  }
  const codexEnvelope = jsonLines([
    { timestamp: '2025-11-03T09:00:00.000Z', type: 'session_meta', payload: { id: 'r1', cwd: '/home/dev/tidepool' } },
    { timestamp: '2025-11-03T09:00:01.000Z', type: 'response_item', payload: { type: 'message', role: 'user' } },
  ]);
  const codexLegacy = jsonLines([
    { id: 'r2', timestamp: '2025-04-01T10:00:00.000Z', instructions: '', git: { branch: 'main' } },
    { record_type: 'state' },
    { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] },
  ]);
  const noClaudeFields = jsonLines([{ type: 'user', message: { content: 'hello' } }]);
  assert.equal(claudeCodeAdapter.sniff(codexEnvelope), false);
  assert.equal(claudeCodeAdapter.sniff(codexLegacy), false);
  assert.equal(claudeCodeAdapter.sniff(noClaudeFields), false);
  assert.equal(claudeCodeAdapter.sniff([]), false);
});

test('probeProject finds the first cwd, also behind summary lines that have none', () => {
  assert.equal(claudeCodeAdapter.probeProject(load('resume-replay.jsonl').chunk.lines), '/home/dev/tidepool');
  assert.equal(claudeCodeAdapter.probeProject(load('bad-lines.jsonl').chunk.lines), 'C:\\Users\\dev\\tidepool');
  assert.equal(claudeCodeAdapter.probeProject(jsonLines([{ type: 'summary', summary: 'x', leafUuid: 'u' }])), undefined);
});

test('one API message split over lines is one reply, even with tool results interleaved', () => {
  const { conv, skipped, chunk } = parse('split-reply.jsonl');
  assert.deepEqual(skipped, []);
  assert.deepEqual(shape(conv.messages), [
    'prompt@2-2',
    'reply@3-7',
    'tool-results@6-8',
    'reply@9-9',
    'prompt@11-11',
    'reply@12-13',
    'tool-results@14-15',
    'reply@16-16',
  ]);
  const [prompt, replyA, resultsA, replyB, , replyC, resultsC] = conv.messages;
  assert.equal(
    prompt!.text,
    'The tide chart shows high tide an hour late for Brest. Can you check the timezone handling in src/tides/offset.ts?',
  );
  assert.equal(replyA!.text, 'Let me look at how the offset is computed.');
  assert.deepEqual(
    replyA!.toolCalls.map((c) => [c.id, c.name]),
    [
      ['toolu_01', 'Read'],
      ['toolu_02', 'Edit'],
    ],
  );
  assert.deepEqual(replyA!.toolCalls[0]!.input, { file_path: '/home/dev/tidepool/src/tides/offset.ts' });
  assert.equal(replyB!.text, "Fixed: `localOffset` used the server's zone instead of the port's. Brest now reads 14:05.");
  assert.equal(replyC!.text, '');
  assert.deepEqual(
    replyC!.toolCalls.map((c) => c.name),
    ['Write', 'Bash'],
  );

  // Messages point at their first line: number, byte offset and record uuid.
  for (const m of conv.messages) {
    const line = chunk.lines[m.line - 1]!;
    assert.equal(m.offset, line.offset);
    assert.equal(m.uuid, (JSON.parse(line.text) as { uuid: string }).uuid);
  }
  assert.equal(prompt!.timestamp, '2025-11-03T09:01:00.000Z');
  assert.equal(prompt!.role, 'user');
  assert.equal(replyA!.role, 'assistant');

  const [read, edit] = resultsA!.toolResults;
  assert.equal(resultsA!.toolResults.length, 2);
  assert.equal(read!.toolUseId, 'toolu_01');
  assert.equal(read!.filePath, '/home/dev/tidepool/src/tides/offset.ts');
  assert.equal(read!.editedLines, undefined);
  assert.ok(read!.text.startsWith('     1\texport function localOffset'));
  assert.ok(!read!.text.includes('system-reminder'), 'reminders are stripped from tool output');
  assert.equal(edit!.toolUseId, 'toolu_02');
  assert.equal(edit!.filePath, '/home/dev/tidepool/src/tides/offset.ts');
  assert.deepEqual(edit!.editedLines, [
    { start: 1, end: 3 },
    { start: 40, end: 40 },
  ]);

  const [write, bash] = resultsC!.toolResults;
  assert.deepEqual(write, {
    toolUseId: 'toolu_03',
    text: 'File created successfully at: /home/dev/tidepool/test/offset.test.ts',
    isError: false,
    filePath: '/home/dev/tidepool/test/offset.test.ts',
  });
  assert.deepEqual(bash, {
    toolUseId: 'toolu_04',
    text: 'FAIL test/offset.test.ts\n  expected offset 2, got 1',
    isError: true,
  });
});

test('meta comes from the records: custom-title beats ai-title, first timestamp, real model', () => {
  const { conv } = parse('split-reply.jsonl');
  assert.equal(conv.sourceFile, path.join(DIR, 'split-reply.jsonl'));
  assert.deepEqual(conv.meta, {
    agent: 'claude-code',
    sessionId: SESSION,
    isSubagent: false,
    line: 1,
    project: '/home/dev/tidepool',
    gitBranch: 'fix/brest-offset',
    title: 'Brest tide offset bug',
    startedAt: '2025-11-03T09:01:00.000Z',
    model: 'claude-sonnet-4-5-20250929',
  });
});

test('wrappers, meta lines and reminder-only lines are ignored without being counted', () => {
  const { conv, skipped } = parse('wrappers.jsonl');
  assert.deepEqual(skipped, []);
  assert.deepEqual(shape(conv.messages), [
    'prompt@8-8',
    'reply@9-9',
    'prompt@11-11',
    'context@12-12',
    'reply@13-13',
    'context@14-14',
    'reply@15-15',
    'prompt@20-20',
    'reply@21-21',
    'tool-results@22-22',
    'reply@23-23',
  ]);
  const texts = conv.messages.map((m) => m.text);
  assert.equal(texts[0], 'Why is the legend overlapping the chart on mobile? Screenshot attached.\n\n[image]');
  assert.equal(texts[2], '/review-pr 42');
  assert.equal(texts[3], 'Review pull request 42 of the tidepool repository and report problems.');
  assert.ok(texts[5]!.startsWith('<task-notification>'));
  assert.equal(texts[7], 'thanks, ship it');
  assert.equal(conv.messages[9]!.toolResults[0]!.text, '[image]');
  const everything = JSON.stringify(conv);
  assert.ok(!everything.includes('iVBORw0KGgo'), 'no base64 image data reaches the model');
});

test('compaction summaries are context, with or without the isCompactSummary flag', () => {
  const { conv, skipped } = parse('compaction.jsonl');
  assert.deepEqual(skipped, []);
  assert.deepEqual(
    conv.messages.map((m) => `${m.kind}@${m.line}`),
    ['prompt@1', 'reply@2', 'context@4', 'prompt@5', 'reply@6', 'context@8', 'prompt@9', 'reply@10'],
  );
  assert.ok(conv.messages[2]!.text.startsWith('This session is being continued from a previous conversation'));
  assert.equal(conv.messages[6]!.text, 'Thanks, that works.');
});

test('a subagent in <session>/subagents/ gets its own session id linked to the parent', () => {
  const parent = '7c9e4b21-3f5a-4d8e-b6c2-0a1b2c3d4e5f';
  const { conv } = parse(`${parent}/subagents/agent-a3f9e1c.jsonl`);
  assert.equal(conv.meta.isSubagent, true);
  assert.equal(conv.meta.parentSessionId, parent);
  assert.equal(conv.meta.sessionId, `${parent}/agent-a3f9e1c`);
  assert.deepEqual(shape(conv.messages), ['prompt@1-1', 'reply@2-2', 'tool-results@3-3', 'reply@4-4']);
  assert.equal(conv.messages[3]!.text, 'Found 2 callers: src/ui/HarbourList.tsx:14 and src/api/sync.ts:31.');
});

test('an older agent-<hex>.jsonl subagent is recognised from its name', () => {
  const { conv } = parse('agent-5d2e8f01.jsonl');
  assert.equal(conv.meta.isSubagent, true);
  assert.equal(conv.meta.parentSessionId, SESSION);
  assert.equal(conv.meta.sessionId, `${SESSION}/agent-5d2e8f01`);
  assert.equal(conv.meta.model, 'claude-haiku-4-5-20251001');
  assert.deepEqual(
    conv.messages.map((m) => [m.kind, m.text]),
    [
      ['prompt', 'Find where formatTide is called in the tidepool app.'],
      ['reply', 'formatTide is called from src/ui/TideChart.tsx:22 only.'],
    ],
  );
});

test("a subagent's cache warm-up (\"Warmup\", no human asked it) is no exchange; a person's \"Warmup\" is", () => {
  const base = { sessionId: 'p-1', cwd: '/home/dev/tidepool', agentId: 'a3b7' };
  const warmup = (extra: object) => [
    { ...base, ...extra, type: 'user', uuid: 'w1', parentUuid: null, message: { role: 'user', content: 'Warmup' } },
    { ...base, ...extra, type: 'assistant', uuid: 'w2', parentUuid: 'w1', message: { id: 'm0', content: [{ type: 'text', text: "I'm Claude Code, ready to help you explore codebases and design implementation plans." }] } },
  ];
  const warmupOnly = claudeCodeAdapter.parse({ file: '/tmp/agent-a3b7.jsonl', lines: jsonLines(warmup({ isSidechain: true })) });
  assert.deepEqual([warmupOnly.conversations, warmupOnly.skipped], [[], []]);

  const thenATask = claudeCodeAdapter.parse({ file: '/tmp/agent-a3b7.jsonl', lines: jsonLines([
    ...warmup({ isSidechain: true }),
    { ...base, isSidechain: true, type: 'user', uuid: 'u1', parentUuid: 'w2', message: { role: 'user', content: 'List the tide stations.' } },
    { ...base, isSidechain: true, type: 'assistant', uuid: 'u2', parentUuid: 'u1', message: { id: 'm1', content: [{ type: 'text', text: 'Brest, Roscoff.' }] } },
  ]) });
  assert.deepEqual(thenATask.conversations[0]!.messages.map((m) => [m.kind, m.text]), [['prompt', 'List the tide stations.'], ['reply', 'Brest, Roscoff.']]);

  const typed = claudeCodeAdapter.parse({ file: '/tmp/p-1.jsonl', lines: jsonLines(warmup({})) });
  assert.deepEqual(typed.conversations[0]!.messages.map((m) => m.kind), ['prompt', 'reply'], 'not a subagent: someone typed it');
});

test('sidechain records with an agentId mark a subagent whatever the file is called', () => {
  const base = { sessionId: 'p-1', cwd: '/home/dev/tidepool', isSidechain: true, agentId: 'b00c' };
  const lines = jsonLines([
    { ...base, type: 'user', uuid: 'u1', message: { role: 'user', content: 'List the stations.' } },
    { ...base, type: 'assistant', uuid: 'u2', message: { id: 'm1', content: [{ type: 'text', text: 'Brest, Roscoff.' }] } },
  ]);
  const out = claudeCodeAdapter.parse({ file: '/tmp/renamed.jsonl', lines });
  const meta = out.conversations[0]!.meta;
  assert.deepEqual([meta.isSubagent, meta.parentSessionId, meta.sessionId], [true, 'p-1', 'p-1/agent-b00c']);
});

test('a --resume replay is de-duplicated by uuid; the summary of this chain names it', () => {
  const { conv, skipped } = parse('resume-replay.jsonl');
  assert.deepEqual(skipped, [
    { line: 5, reason: 'duplicate-uuid' },
    { line: 6, reason: 'duplicate-uuid' },
  ]);
  assert.deepEqual(
    conv.messages.map((m) => `${m.kind}@${m.line}:${m.text}`),
    [
      'prompt@3:Paginate the harbour list.',
      'reply@4:Pagination added with 20 harbours per page.',
      'prompt@7:Make the page size 25 instead.',
      'reply@8:Page size is now 25.',
    ],
  );
  assert.equal(conv.meta.title, 'Harbour list pagination');
});

test('a parse resumed after a turn skips a replayed record whose first copy lies before the resume point, as a whole read does', () => {
  const whole = parse('replay-after-turn.jsonl');
  assert.deepEqual(whole.skipped, [
    { line: 5, reason: 'duplicate-uuid' },
    { line: 6, reason: 'duplicate-uuid' },
  ]);
  const third = whole.chunk.lines[2]!;
  const seenIds = whole.idsBefore!(third.offset);
  assert.deepEqual(seenIds, ['3e8a1c52-0000-4000-8000-000000000001', '3e8a1c52-0000-4000-8000-000000000002']);
  const lines = whole.chunk.lines.slice(2);
  const resumed = claudeCodeAdapter.parse({ file: whole.conv.sourceFile, lines, resume: whole.conv.meta, seenIds });
  assert.deepEqual(resumed.skipped, whole.skipped);
  const after = (messages: readonly Message[]): string[] => shape(messages.filter((m) => m.line >= 3));
  assert.deepEqual(shape(resumed.conversations[0]!.messages), after(whole.conv.messages));
  // without them the replayed prompt is read as typed again
  const blind = claudeCodeAdapter.parse({ file: whole.conv.sourceFile, lines, resume: whole.conv.meta });
  assert.deepEqual(blind.skipped, []);
  assert.ok(shape(blind.conversations[0]!.messages).includes('prompt@5-5'));
});

test('bad lines are skipped with a reason, a partial last line waits, nothing throws', () => {
  const { conv, skipped, chunk } = parse('bad-lines.jsonl');
  assert.equal(chunk.heldBackPartial, true);
  assert.equal(chunk.lines.length, 7);
  assert.deepEqual(skipped, [
    { line: 2, reason: 'malformed-json' },
    { line: 3, reason: 'unknown-record' },
    { line: 4, reason: 'not-an-object' },
    { line: 7, reason: 'unknown-record' },
  ]);
  assert.deepEqual(shape(conv.messages), ['prompt@1-1', 'reply@6-6']);
  assert.equal(conv.meta.project, 'C:\\Users\\dev\\tidepool');

  // Given the partial line anyway (no hold-back), it is one more malformed line.
  const all = splitLines(readFileSync(path.join(DIR, 'bad-lines.jsonl')), 0, 1, { holdBackPartial: false });
  const out = claudeCodeAdapter.parse({ file: path.join(DIR, 'bad-lines.jsonl'), lines: all.lines });
  assert.deepEqual(out.skipped.at(-1), { line: 8, reason: 'malformed-json' });
});

test('API error replies are kept, thinking-only replies dropped, the model is the real one', () => {
  const { conv } = parse('synthetic.jsonl');
  assert.deepEqual(shape(conv.messages), ['prompt@1-1', 'reply@2-2', 'prompt@3-3', 'reply@5-5']);
  assert.ok(conv.messages[1]!.text.startsWith('API Error: 529'));
  assert.equal(conv.meta.model, 'claude-opus-4-5-20251101');
});

test('a resumed parse keeps the identity it was given and fills what the tail adds', () => {
  const { file, chunk } = load('split-reply.jsonl');
  const head = claudeCodeAdapter.parse({ file, lines: chunk.lines.slice(0, 10) });
  const headMeta = head.conversations[0]!.meta;
  assert.equal(headMeta.title, undefined);

  const tail = claudeCodeAdapter.parse({ file, lines: chunk.lines.slice(10), resume: headMeta });
  const conv = tail.conversations[0]!;
  assert.deepEqual(conv.meta, { ...headMeta, title: 'Brest tide offset bug' });
  assert.equal(conv.meta.line, 1);
  assert.deepEqual(shape(conv.messages), ['prompt@11-11', 'reply@12-13', 'tool-results@14-15', 'reply@16-16']);

  // A tail without any record carrying header fields still continues the same conversation.
  const bare = jsonLines([
    { type: 'user', uuid: 'x1', message: { role: 'user', content: 'One more thing: rename the test.' } },
  ]);
  const resumed = claudeCodeAdapter.parse({ file, lines: bare, resume: headMeta });
  assert.deepEqual(resumed.conversations[0]!.meta, headMeta);
});

test('a file with no messages yields no conversation', () => {
  const lines = jsonLines([
    { type: 'summary', summary: 'Old chain', leafUuid: 'u0' },
    { type: 'file-history-snapshot', messageId: 'm', snapshot: {}, isSnapshotUpdate: false },
  ]);
  const { idsBefore: _ids, ...out } = claudeCodeAdapter.parse({ file: '/tmp/empty.jsonl', lines });
  assert.deepEqual(out, { conversations: [], skipped: [] });
});

test('lines over 1 MB parse whole, with reminders stripped and no time blow-up', () => {
  const pasted = 'const station = { id: 42, name: "Brest" };\n'.repeat(30_000); // ~1.3 MB
  const base = { sessionId: 's-big', cwd: '/home/dev/tidepool' };
  const lines = jsonLines([
    {
      ...base,
      type: 'user',
      uuid: 'b1',
      message: { role: 'user', content: `<system-reminder>ctx</system-reminder>Why is this slow?\n${pasted}` },
    },
    { ...base, type: 'assistant', uuid: 'b2', message: { id: 'm1', content: [{ type: 'tool_use', id: 't1', name: 'Read', input: {} }] } },
    { ...base, type: 'user', uuid: 'b3', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: pasted }] } },
  ]);
  assert.ok(lines[0]!.text.length > 1_000_000);
  const started = performance.now();
  const out = claudeCodeAdapter.parse({ file: '/tmp/big.jsonl', lines });
  assert.ok(performance.now() - started < 1_000);
  const [prompt, , results] = out.conversations[0]!.messages;
  assert.equal(prompt!.text, `Why is this slow?\n${pasted}`.trim());
  assert.equal(results!.toolResults[0]!.text.length, pasted.length);
});

test('a slash command the model answers is an exchange of its own; a local command or an unanswered one is none', () => {
  const { conv, skipped } = parse('slash-commands.jsonl');
  assert.deepEqual(skipped, []);
  // /model (line 4) printed its output and was not sent to the model; /publish-session on line 13 got no reply.
  assert.deepEqual(shape(conv.messages), [
    'prompt@1-1',
    'reply@2-2',
    'prompt@6-6',
    'context@7-7',
    'reply@8-8',
    'prompt@9-9',
    'reply@10-10',
    'prompt@11-11',
    'reply@12-12',
    'prompt@14-14',
    'reply@15-15',
  ]);
  // The prompt is the command as typed; the expansion Claude Code sent for it is the agent's text: context.
  assert.equal(conv.messages[2]!.text, '/publish-session');
  assert.ok(conv.messages[3]!.text.startsWith('Publish the current session transcript by running:'));
  assert.equal(conv.messages[7]!.text, '/review-pr 42 --strict');

  const { exchanges } = segmentConversation(conv, DEFAULT_SEGMENT_OPTIONS);
  assert.deepEqual(
    exchanges.map((e) => [e.prompt, e.lineStart, e.lineEnd]),
    [
      ['Write a short poem about Thai red curry, four lines.', 1, 2],
      ['/publish-session', 6, 8],
      ["why won't you run it?", 9, 10],
      ['/review-pr 42 --strict', 11, 12],
      ['thanks, now a poem about green curry please', 14, 15],
    ],
  );
  // The poem's exchange ends with the poem, not with the reply to the command typed after it.
  const poem = exchanges[0]!.messages.filter((m) => m.kind === 'reply').at(-1)!;
  assert.ok(poem.text.startsWith('Here is the poem about Thai red curry'));
  assert.ok(!exchanges[0]!.verbatim.includes('publish'));
});

test('a background task report the model answers opens an exchange named by its summary; an unanswered one stays context', () => {
  const { conv, skipped } = parse('task-notifications.jsonl');
  assert.deepEqual(skipped, []);
  assert.deepEqual(shape(conv.messages), [
    'prompt@1-1',
    'reply@2-2',
    'tool-results@3-3',
    'reply@4-4',
    'prompt@5-5',
    'reply@6-6',
    // line 7 is Claude Code's queue of the report, no message; line 10, the green curry's report, gets no reply
    'context@8-8',
    'reply@9-9',
    'context@10-10',
    'prompt@11-11',
    'reply@12-12',
    'tool-results@13-13',
    'context@14-14',
    'reply@15-15',
  ]);
  // the answered reports carry what they would name; the unanswered one nothing: nobody typed any of them
  assert.deepEqual(conv.messages.map((m) => m.opens).filter(Boolean), [
    'Agent "Poem about Thai red curry" completed',
    'Background command "Run the test suite" failed with exit code 1',
  ]);

  const { exchanges } = segmentConversation(conv, DEFAULT_SEGMENT_OPTIONS);
  assert.deepEqual(
    exchanges.map((e) => [e.prompt, e.lineStart, e.lineEnd]),
    [
      ['Spawn background agents to write poems about Thai red curry and Thai green curry, and write me a sushi poem meanwhile.', 1, 4],
      // the rice answer no longer ends on the red curry poem
      ['Which rice works best for sushi?', 5, 6],
      ['Agent "Poem about Thai red curry" completed', 8, 10],
      // a report that arrives before the exchange open has an answer is part of it, and names nothing
      ['Now run the tests in the background.', 11, 15],
    ],
  );
  // the report is shown as it is, as context (never as the person's words), its result with it
  const red = exchanges[2]!.verbatim;
  assert.ok(red.startsWith('[context] <task-notification>\n<task-id>ac27727</task-id>'), red);
  assert.ok(!/^User: /mu.test(red));
  assert.match(red, /Assistant: The \*\*Thai Red Curry\*\* poem is ready/u);
  assert.ok(!exchanges[1]!.verbatim.includes('Curry'));
});

test('a message typed while the model works and taken into its turn is a prompt of the exchange open; a queued text sent, taken back, a report, a command or a one-time password is none', () => {
  const { conv, skipped } = parse('typed-while-working.jsonl');
  assert.deepEqual(skipped, []);
  const prompts = conv.messages.filter((m) => m.kind === 'prompt').map((m) => [m.text, m.line, m.taken ?? false]);
  assert.deepEqual(prompts, [
    ['Fix the date parser in src/parse.ts.', 1, false],
    // Claude Code wrote it only as queue operations: enqueue (line 4), remove (line 5), the prompt's place
    ['create a launcher for the parser tests in the Apps folder', 5, true],
    // sent as the next turn (dequeue): the user line is the prompt
    ['seems fixed', 10, false],
    ['Now add a test for leap years.', 12, false],
    // a report and a command taken (lines 16-17) and a text taken back to the input box (popAll, line 19) are none
    ['also cover 1900', 21, true],
    // the model let it pass and the person typed it again: no later line is looked at, so it is a prompt twice
    ['uninstall the old parser', 26, true],
    ['uninstall the old parser', 29, false],
  ]);
  const { exchanges } = segmentConversation(conv, { ...DEFAULT_SEGMENT_OPTIONS, minChars: 0 });
  assert.deepEqual(
    exchanges.map((e) => [e.prompt, e.lineStart, e.lineEnd]),
    [
      // taken into the running turn, it joins the exchange open, though that one has an answer (line 2)
      ['Fix the date parser in src/parse.ts.\n\ncreate a launcher for the parser tests in the Apps folder', 1, 7],
      ['seems fixed', 10, 11],
      ['Now add a test for leap years.\n\nalso cover 1900\n\nuninstall the old parser', 12, 28],
      // a YubiKey's one-time passwords taken at lines 34-35 are no prompt
      ['uninstall the old parser', 29, 37],
    ],
  );
});

test('a queued message belongs to the exchange it was typed in: one queued before the first message, or taken after the next typed line, is none', () => {
  const base = { sessionId: 's-q', cwd: '/home/dev/parser' };
  const queue = (operation: string, content?: string): object => ({ ...base, type: 'queue-operation', operation, ...(content ? { content } : {}) });
  const lines = jsonLines([
    // a file that starts within a turn (its prompt in another file)
    queue('enqueue', 'typed before anything'),
    { ...base, type: 'assistant', uuid: 'a0', message: { id: 'm0', content: [{ type: 'tool_use', id: 't0', name: 'Bash', input: {} }] } },
    queue('remove'),
    { ...base, type: 'user', uuid: 'u0', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't0', content: 'ok' }] } },
    { ...base, type: 'user', uuid: 'u1', message: { role: 'user', content: 'Fix the date parser.' } },
    { ...base, type: 'assistant', uuid: 'a1', message: { id: 'm1', content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: {} }] } },
    queue('enqueue', 'also check leap years'),
    { ...base, type: 'user', uuid: 'u2', message: { role: 'user', content: 'And the time zones.' } },
    queue('remove'),
    { ...base, type: 'user', uuid: 'u3', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'ok' }] } },
    { ...base, type: 'assistant', uuid: 'a2', message: { id: 'm2', content: [{ type: 'text', text: 'Done.' }] } },
  ]);
  const out = claudeCodeAdapter.parse({ file: '/tmp/s-q.jsonl', lines });
  assert.deepEqual(out.conversations[0]!.messages.filter((m) => m.kind === 'prompt').map((m) => m.text), ['Fix the date parser.', 'And the time zones.']);
});
