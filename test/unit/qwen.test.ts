import assert from 'node:assert/strict';
import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import type { Conversation } from '../../src/core/model';
import type { ParseOutput, SourceAdapter } from '../../src/core/sources/adapter';
import { defaultQwenRoots } from '../../src/core/sources/agentRoots';
import { claudeCodeAdapter } from '../../src/core/sources/claudeCode';
import { defaultDiscovery, discoverSources, transcriptRoots } from '../../src/core/sources/discover';
import { qwenDocumentAdapter } from '../../src/core/sources/gemini';
import { parsesAsJson, splitLines } from '../../src/core/sources/lines';
import { qwenAdapter } from '../../src/core/sources/qwen';
import { segmentConversation } from '../../src/core/segment';
import { FIXTURES, tempDir } from './helpers';

const QWEN = path.join(FIXTURES, 'qwen', '.qwen');
const CHAT = path.join(QWEN, 'projects', '-home-dev-harbour-tides', 'chats', 'a7c31e09-4b2f-4d6a-8e15-93f0c2d7b851.jsonl');
const HASH = '2f3a52ec1149f882d91feb3cc3129749d439b520cf8f565d5f8e82760a25a074';
const DOC = path.join(QWEN, 'tmp', HASH, 'chats', 'session-2025-10-20T08-00-5d0e8b21.json');
const segment = { minChars: 100, maxPlies: 20 };

async function parse(adapter: SourceAdapter, file: string): Promise<ParseOutput & { heldBack: boolean }> {
  const chunk = splitLines(await readFile(file), 0, 1, { holdBackPartial: adapter.lineFormat === 'jsonl', isComplete: parsesAsJson });
  return { ...adapter.parse({ file, lines: chunk.lines }), heldBack: chunk.heldBackPartial };
}

function only(out: ParseOutput): Conversation {
  assert.equal(out.conversations.length, 1);
  return out.conversations[0]!;
}

test('chat log: prompts, model replies (thoughts left out), function calls and their responses in both record shapes; a repeated record, an unknown type counted', async () => {
  const out = await parse(qwenAdapter, CHAT);
  const conv = only(out);
  assert.deepEqual(conv.meta, {
    agent: 'qwen-code',
    sessionId: 'a7c31e09-4b2f-4d6a-8e15-93f0c2d7b851',
    line: 1,
    isSubagent: false,
    // the folder `-home-dev-harbour-tides` could be /home/dev/harbour/tides: the records' cwd says which
    project: '/home/dev/harbour-tides',
    gitBranch: 'main',
    title: 'Tide table hour 24 crash',
    startedAt: '2026-04-02T14:00:00.000Z',
    model: 'qwen3-coder-plus',
  });
  assert.deepEqual(out.skipped, [{ line: 12, reason: 'duplicate-uuid' }, { line: 14, reason: 'unknown-record' }]);
  assert.equal(out.heldBack, true);
  assert.deepEqual(
    conv.messages.map((m) => `${m.kind} ${m.line}-${m.lineEnd}`),
    ['prompt 1-1', 'reply 3-3', 'tool-results 4-4', 'reply 5-5', 'tool-results 6-6', 'reply 7-7', 'prompt 9-9', 'reply 10-10', 'tool-results 11-11', 'reply 13-13'],
  );
  const reply = conv.messages[1]!;
  assert.equal(reply.text, 'Let me read the table code.', 'a thought part is not the reply');
  assert.deepEqual(reply.toolCalls, [{ id: 'call_r1', name: 'read_file', input: { absolute_path: '/home/dev/harbour-tides/harbour_tides/tides.py', offset: 20, limit: 20 } }]);
  assert.deepEqual(conv.messages[2]!.toolResults, [{ toolUseId: 'call_r1', text: '31:    return heights[hour]', isError: false }]);
  // an older version's `user` record of function responses only, its response an error
  assert.deepEqual(conv.messages[8]!.toolResults, [{ toolUseId: 'call_s1', text: 'Command exited with code 1: 1 failed, 11 passed (test_spring_tide)', isError: true }]);
  assert.equal(conv.messages[0]!.uuid, 'q01-a7c31e09', "the record's uuid: a /branch copy of the session is the same memory");
});

test('chat log: exchanges dated by their records; the edit\'s fileDiff gives the lines it changed', async () => {
  const { exchanges, dropped } = segmentConversation(only(await parse(qwenAdapter, CHAT)), segment);
  assert.deepEqual(dropped, []);
  assert.deepEqual(
    exchanges.map((e) => [e.lineStart, e.lineEnd, e.startedAt, e.datePrecision]),
    [
      [1, 7, '2026-04-02T14:00:00.000Z', 'message'],
      [9, 13, '2026-04-02T14:00:09.000Z', 'message'],
    ],
  );
  assert.deepEqual(exchanges[0]!.filesTouched, [{ path: 'harbour_tides/tides.py', how: 'edit', lines: [{ start: 31, end: 32 }] }]);
  assert.deepEqual(exchanges[1]!.filesTouched, [{ path: 'tests/test_tides.py', how: 'mention' }]);
  assert.match(exchanges[1]!.verbatim, /^\[error\] Command exited with code 1/m);
});

test("a Qwen log out of its layout is told from Claude Code's (same uuid, sessionId, cwd and type fields) by its message parts", async () => {
  const head = splitLines(await readFile(CHAT), 0, 1, { holdBackPartial: true }).lines;
  assert.equal(claudeCodeAdapter.sniff(head), true, 'the trap: Claude Code\'s sniffer alone would take it');
  const claude = splitLines(await readFile(path.join(FIXTURES, 'claude-code', 'compaction.jsonl')), 0, 1, { holdBackPartial: true }).lines;
  assert.equal(qwenAdapter.sniff(claude), false, "Claude Code's messages have content, not parts");
  const root = tempDir();
  await mkdir(path.join(root, 'saved'), { recursive: true });
  await cp(CHAT, path.join(root, 'saved', 'qwen-chat.jsonl'));
  await cp(path.join(FIXTURES, 'claude-code', 'compaction.jsonl'), path.join(root, 'saved', 'claude.jsonl'));
  const found = await discoverSources({ workspaceRoots: [], claudeRoots: [], codexRoots: [], extraRoots: [root], includeSubagents: true });
  assert.deepEqual(found.map((s) => [path.basename(s.path), s.adapter.agent]), [['claude.jsonl', 'claude-code'], ['qwen-chat.jsonl', 'qwen-code']]);
});

test('the older JSON document under ~/.qwen/tmp: Gemini CLI\'s shape with `qwen` replies, attributed by the sha256 of the project', async () => {
  const out = await parse(qwenDocumentAdapter, DOC);
  const conv = only(out);
  assert.equal(conv.meta.agent, 'qwen-code');
  assert.deepEqual(out.skipped, []);
  assert.deepEqual(conv.messages.map((m) => `${m.kind} ${m.line}-${m.lineEnd}`), ['prompt 7-12', 'reply 13-40', 'tool-results 13-40']);
  const [e] = segmentConversation({ ...conv, meta: { ...conv.meta, project: '/home/dev/harbour-tides' } }, segment).exchanges;
  assert.deepEqual(e!.filesTouched, [{ path: 'harbour_tides/config.py', how: 'read' }]);
});

test('discovery by layout under a root: the chat log by its cwd, the older document by its hash; the workspace filter keeps this project only', async () => {
  const root = tempDir();
  await cp(path.join(FIXTURES, 'qwen'), root, { recursive: true });
  // another project's session in the same projects folder
  const other = path.join(root, '.qwen', 'projects', '-home-dev-gauges', 'chats', 'b1.jsonl');
  await mkdir(path.dirname(other), { recursive: true });
  const text = (await readFile(CHAT, 'utf8')).replaceAll('/home/dev/harbour-tides', '/home/dev/gauges');
  await writeFile(other, text);
  const all = await discoverSources({ workspaceRoots: [], claudeRoots: [], codexRoots: [], extraRoots: [root], includeSubagents: true });
  assert.deepEqual(all.map((s) => [s.adapter.agent, s.adapter.lineFormat, s.project]).sort(), [
    ['qwen-code', 'json', undefined],
    ['qwen-code', 'jsonl', '/home/dev/gauges'],
    ['qwen-code', 'jsonl', '/home/dev/harbour-tides'],
  ]);
  const mine = await discoverSources({
    workspaceRoots: ['/home/dev/harbour-tides'], claudeRoots: [], codexRoots: [], agentRoots: [path.join(root, '.qwen', 'projects'), path.join(root, '.qwen', 'tmp')], extraRoots: [], includeSubagents: true,
  });
  assert.deepEqual(mine.map((s) => [s.adapter.lineFormat, s.project]).sort(), [['json', '/home/dev/harbour-tides'], ['jsonl', '/home/dev/harbour-tides']]);
});

test('default locations: ~/.qwen/projects and ~/.qwen/tmp, both moved by QWEN_RUNTIME_DIR; watched like every root', () => {
  const home = path.join(os.homedir(), '.qwen');
  assert.deepEqual(defaultQwenRoots({}), [path.join(home, 'projects'), path.join(home, 'tmp')]);
  assert.deepEqual(defaultQwenRoots({ QWEN_RUNTIME_DIR: '/data/qwen' }), [path.join('/data/qwen', 'projects'), path.join('/data/qwen', 'tmp')]);
  const roots = transcriptRoots(defaultDiscovery({ workspaceRoots: ['/w'], userDataDirs: [] }, { QWEN_RUNTIME_DIR: '/data/qwen' }));
  assert.ok(roots.includes(path.join('/data/qwen', 'projects')), roots.join(', '));
});
