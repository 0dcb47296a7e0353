import assert from 'node:assert/strict';
import { cp, readFile } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import type { Conversation } from '../../src/core/model';
import type { ParseOutput } from '../../src/core/sources/adapter';
import { defaultPiRoots } from '../../src/core/sources/agentRoots';
import { codexAdapter } from '../../src/core/sources/codex';
import { defaultDiscovery, discoverSources, transcriptRoots } from '../../src/core/sources/discover';
import { parsesAsJson, splitLines } from '../../src/core/sources/lines';
import { piAdapter } from '../../src/core/sources/pi';
import { segmentConversation } from '../../src/core/segment';
import { FIXTURES, tempDir } from './helpers';

const SESSION_ID = '0d4f7a2c-91b3-4e6d-8a5f-3c7e1b9d2f40';
const SESSION = path.join(FIXTURES, 'pi', '.pi', 'agent', 'sessions', '--home-dev-lighthouse--', `2026-04-10T09-00-00-000Z_${SESSION_ID}.jsonl`);
const segment = { minChars: 100, maxPlies: 20 };

async function parse(bytes?: Buffer): Promise<ParseOutput & { heldBack: boolean }> {
  const chunk = splitLines(bytes ?? (await readFile(SESSION)), 0, 1, { holdBackPartial: true, isComplete: parsesAsJson });
  return { ...piAdapter.parse({ file: SESSION, lines: chunk.lines }), heldBack: chunk.heldBackPartial };
}

function only(out: ParseOutput): Conversation {
  assert.equal(out.conversations.length, 1);
  return out.conversations[0]!;
}

test('a session: header, prompts, replies (thinking left out), tool calls and results; summaries and the user\'s own commands are context; bad lines counted', async () => {
  const out = await parse();
  const conv = only(out);
  assert.deepEqual(conv.meta, {
    agent: 'pi',
    sessionId: SESSION_ID,
    line: 1,
    isSubagent: false,
    project: '/home/dev/lighthouse',
    title: 'Beam sweep degrees',
    startedAt: '2026-04-10T09:00:00.000Z',
    model: 'claude-sonnet-4-5',
  });
  assert.deepEqual(out.skipped, [{ line: 20, reason: 'malformed-json' }, { line: 21, reason: 'unknown-record' }]);
  assert.equal(out.heldBack, true);
  assert.deepEqual(
    conv.messages.map((m) => `${m.kind} ${m.line}`),
    ['prompt 4', 'reply 5', 'tool-results 6', 'reply 7', 'tool-results 8', 'reply 9', 'context 11', 'prompt 12', 'reply 13', 'tool-results 14', 'reply 15', 'context 16', 'prompt 17', 'reply 18'],
  );
  const [prompt, reply] = conv.messages;
  assert.equal(prompt!.uuid, `${SESSION_ID}#03a7c3e9`);
  assert.equal(reply!.text, 'Reading the sweep code.');
  assert.deepEqual(reply!.toolCalls, [
    { id: 'toolu_pi_read', name: 'read', input: { path: 'src/beam.ts', offset: 20, limit: 15 }, lines: [{ start: 20, end: 34 }] },
  ], "pi's read counts its offset from 1 (OpenCode's read, of the same name, from 0)");
  assert.equal(conv.messages[6]!.text, '$ npm test -- beam\nbeam.test.ts: 1 failed (sweeps 90 degrees in 1 s)');
  assert.deepEqual(conv.messages[9]!.toolResults, [{ toolUseId: 'toolu_pi_bash', text: 'expected 1 to be close to 0.0175 (test/beam.test.ts:8)', isError: true }]);
  assert.match(conv.messages[11]!.text, /^The beam angle is in degrees/);
});

test('a session: exchanges dated by their entries; the edit\'s numbered diff gives the lines it changed', async () => {
  const { exchanges, dropped } = segmentConversation(only(await parse()), segment);
  assert.deepEqual(dropped, []);
  assert.deepEqual(
    exchanges.map((e) => [e.lineStart, e.lineEnd, e.startedAt, e.datePrecision]),
    [
      [4, 11, '2026-04-10T09:00:05.000Z', 'message'],
      [12, 16, '2026-04-10T09:00:25.000Z', 'message'],
      [17, 18, '2026-04-10T09:05:10.000Z', 'message'],
    ],
  );
  // read (lines 20-34), then edited: `+22` and `+23` are the new lines
  assert.deepEqual(exchanges[0]!.filesTouched, [{ path: 'src/beam.ts', how: 'edit', lines: [{ start: 22, end: 23 }] }]);
});

test('a read without an edit keeps its own lines; a forked session names the session it came from', () => {
  const lines = [
    { type: 'session', version: 3, id: 'fork-1', timestamp: '2026-04-11T08:00:00.000Z', cwd: '/home/dev/lighthouse', parentSession: `/home/dev/.pi/agent/sessions/--home-dev-lighthouse--/2026-04-10T09-00-00-000Z_${SESSION_ID}.jsonl` },
    { type: 'message', id: 'a', parentId: null, timestamp: '2026-04-11T08:00:01.000Z', message: { role: 'user', content: 'What does the first line of src/beam.ts import, and from where?' } },
    { type: 'message', id: 'b', parentId: 'a', timestamp: '2026-04-11T08:00:03.000Z', message: { role: 'assistant', content: [{ type: 'toolCall', id: 't', name: 'read', arguments: { path: 'src/beam.ts', offset: 1, limit: 1 } }] } },
    { type: 'message', id: 'c', parentId: 'b', timestamp: '2026-04-11T08:00:04.000Z', message: { role: 'toolResult', toolCallId: 't', content: [{ type: 'text', text: "import { clamp } from './math';" }], isError: false } },
    { type: 'message', id: 'd', parentId: 'c', timestamp: '2026-04-11T08:00:06.000Z', message: { role: 'assistant', content: [{ type: 'text', text: 'It imports `clamp` from `./math`, the local helpers module.' }] } },
  ];
  const out = piAdapter.parse({ file: '/tmp/x.jsonl', lines: splitLines(Buffer.from(lines.map((l) => JSON.stringify(l)).join('\n') + '\n'), 0, 1, { holdBackPartial: true }).lines });
  const conv = only(out);
  assert.equal(conv.meta.parentSessionId, SESSION_ID);
  const [e] = segmentConversation(conv, segment).exchanges;
  assert.deepEqual(e!.filesTouched, [{ path: 'src/beam.ts', how: 'read', lines: [{ start: 1, end: 1 }] }]);
});

test("discovery by layout: pi's sessions folder under a root; a loose copy is not taken for a legacy Codex rollout (its items are `type: message` too)", async () => {
  const head = splitLines(await readFile(SESSION), 0, 1, { holdBackPartial: true }).lines;
  assert.equal(codexAdapter.sniff(head), true, "the trap: Codex's sniffer alone would take it");
  const root = tempDir();
  await cp(path.join(FIXTURES, 'pi'), root, { recursive: true });
  await cp(SESSION, path.join(root, 'loose.jsonl'));
  const found = await discoverSources({ workspaceRoots: ['/home/dev/lighthouse'], claudeRoots: [], codexRoots: [], extraRoots: [root], includeSubagents: true });
  assert.deepEqual(found.map((s) => [path.basename(s.path), s.adapter.agent, s.project]), [
    [path.basename(SESSION), 'pi', '/home/dev/lighthouse'],
    ['loose.jsonl', 'pi', '/home/dev/lighthouse'],
  ]);
});

test('default location: ~/.pi/agent/sessions, moved by PI_CODING_AGENT_DIR; watched like every root', () => {
  assert.deepEqual(defaultPiRoots({}), [path.join(os.homedir(), '.pi', 'agent', 'sessions')]);
  assert.deepEqual(defaultPiRoots({ PI_CODING_AGENT_DIR: '/opt/pi' }), [path.join('/opt/pi', 'sessions')]);
  assert.ok(transcriptRoots(defaultDiscovery({ workspaceRoots: ['/w'], userDataDirs: [] }, { PI_CODING_AGENT_DIR: '/opt/pi' })).includes(path.join('/opt/pi', 'sessions')));
});
