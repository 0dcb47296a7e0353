import assert from 'node:assert/strict';
import { cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { indexSource } from '../../src/core/indexer';
import type { Conversation } from '../../src/core/model';
import type { ParseOutput } from '../../src/core/sources/adapter';
import { defaultCopilotCliRoots } from '../../src/core/sources/agentRoots';
import { copilotCliAdapter } from '../../src/core/sources/copilotCli';
import { defaultDiscovery, discoverSources, transcriptRoots } from '../../src/core/sources/discover';
import { parsesAsJson, splitLines } from '../../src/core/sources/lines';
import { segmentConversation } from '../../src/core/segment';
import { Store } from '../../src/core/store/store';
import { FIXTURES, tempDir } from './helpers';

const STATE = path.join(FIXTURES, 'copilot-cli', 'session-state');
const SESSION_DIR = path.join(STATE, 'c41d2e7f-harbour-resumed');
const EVENTS = path.join(SESSION_DIR, 'events.jsonl');
const BARE = path.join(STATE, '8b2e6f10-7a3c-4d59-a1e8-5c9d0f7b3e24.jsonl');
const segment = { minChars: 100, maxPlies: 20 };

async function parse(file: string, withYaml = true, bytes?: Buffer): Promise<ParseOutput & { heldBack: boolean }> {
  const chunk = splitLines(bytes ?? (await readFile(file)), 0, 1, { holdBackPartial: true, isComplete: parsesAsJson });
  const yaml = withYaml ? await readFile(path.join(path.dirname(file), 'workspace.yaml'), 'utf8').catch(() => undefined) : undefined;
  const side = new Map(yaml === undefined ? [] : [['workspace.yaml', yaml]]);
  return { ...copilotCliAdapter.parse({ file, lines: chunk.lines, side }), heldBack: chunk.heldBackPartial };
}

function only(out: ParseOutput): Conversation {
  assert.equal(out.conversations.length, 1);
  return out.conversations[0]!;
}

test('events.jsonl: the start event names the session (not its folder), workspace.yaml the title; unknown events and damaged lines counted; a partial last line waits', async () => {
  const out = await parse(EVENTS);
  const conv = only(out);
  assert.deepEqual(conv.meta, {
    agent: 'copilot-cli',
    sessionId: '3f0c9a7e-52d1-4b8e-9c61-0e4d7a2b9f13',
    line: 1,
    isSubagent: false,
    project: '/home/dev/harbour',
    gitBranch: 'rate-limit',
    title: 'Configurable tide API rate limit',
    startedAt: '2026-03-14T09:00:00.000Z',
    model: 'claude-sonnet-4.6',
  });
  assert.deepEqual(out.skipped, [{ line: 19, reason: 'unknown-record' }, { line: 20, reason: 'malformed-json' }]);
  assert.equal(out.heldBack, true, 'the prompt being written is not read yet');
  assert.deepEqual(
    conv.messages.map((m) => `${m.kind} ${m.line}-${m.lineEnd}`),
    ['prompt 4-4', 'reply 6-6', 'tool-results 8-8', 'reply 9-9', 'tool-results 11-11', 'reply 12-12', 'prompt 15-15', 'reply 16-16', 'tool-results 18-18', 'reply 21-21'],
  );
  const [prompt, reply, results] = conv.messages;
  assert.equal(prompt!.uuid, 'e04-3f0c9a7e', "the event's id: a copy of the session in the older layout is the same memory");
  assert.equal(prompt!.timestamp, '2026-03-14T09:00:02.000Z');
  assert.deepEqual(prompt!.touched, [{ path: '/home/dev/harbour/docs/rate-limits.md', how: 'mention' }], 'a file the user attached');
  assert.equal(reply!.text, 'I will look at the limiter first.', 'reasoning is not the reply');
  // the request's arguments (a JSON string) and the start event's (an object) are one call
  assert.deepEqual(reply!.toolCalls, [{ id: 'call_view_1', name: 'view', input: { path: '/home/dev/harbour/src/tides/limit.ts', view_range: [1, 40] } }]);
  assert.deepEqual(results!.toolResults, [{ toolUseId: 'call_view_1', text: '12.   const max = 60;\n13.   return bucket(key).take(max);', isError: false }]);
  assert.deepEqual(conv.messages[8]!.toolResults, [{ toolUseId: 'call_bash_1', text: 'limit.test.ts: expected 60 to be 120 (1 failed, 7 passed)', isError: true }]);
  assert.ok(!conv.messages.some((m) => m.text.includes('skill-context')), "a skill's injected body is nobody's prompt");
});

test('events.jsonl: two exchanges, dated by their events, with the edited lines the edit\'s diff names', async () => {
  const { exchanges, dropped } = segmentConversation(only(await parse(EVENTS)), segment);
  assert.deepEqual(dropped, []);
  assert.deepEqual(
    exchanges.map((e) => [e.lineStart, e.lineEnd, e.startedAt, e.endedAt, e.datePrecision, e.prompt.slice(0, 22)]),
    [
      [4, 12, '2026-03-14T09:00:02.000Z', '2026-03-14T09:00:08.000Z', 'message', 'The tide API answers 4'],
      [15, 21, '2026-03-14T09:00:10.000Z', '2026-03-14T09:00:17.000Z', 'message', 'Run the limiter tests.'],
    ],
  );
  // viewed (lines 1-40), then edited: the diff's hunk @@ -12,3 +12,4 @@ gives the lines edited
  assert.deepEqual(exchanges[0]!.filesTouched, [
    { path: 'src/tides/limit.ts', how: 'edit', lines: [{ start: 12, end: 15 }] },
    { path: 'docs/rate-limits.md', how: 'mention' },
  ]);
  assert.match(exchanges[1]!.verbatim, /^\[error\] limit\.test\.ts: expected 60 to be 120/m);
});

test('the older bare <id>.jsonl: start events without call ids are answered in order, results as plain strings', async () => {
  const out = await parse(BARE);
  const conv = only(out);
  assert.equal(conv.meta.sessionId, '8b2e6f10-7a3c-4d59-a1e8-5c9d0f7b3e24');
  assert.equal(conv.meta.title, undefined, 'no workspace.yaml beside a bare log');
  assert.deepEqual(out.skipped, []);
  assert.deepEqual(conv.messages.map((m) => m.kind), ['prompt', 'reply', 'tool-results', 'reply']);
  assert.deepEqual(conv.messages[1]!.toolCalls, [{ name: 'view', input: { path: 'src/widgets/moon.ts' } }]);
  assert.deepEqual(conv.messages[2]!.toolResults, [{ text: 'const today = new Date().toISOString().slice(0, 10);', isError: false }]);
  const [e] = segmentConversation(conv, segment).exchanges;
  assert.deepEqual(e!.filesTouched, [{ path: 'src/widgets/moon.ts', how: 'read' }], 'a relative path is read against the cwd');
});

test('a missing or damaged workspace.yaml costs only the title; a log whose start event names no cwd takes workspace.yaml\'s', async () => {
  const conv = only(await parse(EVENTS, false));
  assert.equal(conv.meta.title, undefined);
  assert.equal(conv.meta.project, '/home/dev/harbour');
  const damaged = only({ ...copilotCliAdapter.parse({ file: EVENTS, lines: splitLines(await readFile(EVENTS), 0, 1, { holdBackPartial: true }).lines, side: new Map([['workspace.yaml', '\u0000: [ unclosed\nname']]) }) });
  assert.equal(damaged.meta.title, undefined);

  const dir = path.join(tempDir(), 'session-state', 'no-cwd');
  await mkdir(dir, { recursive: true });
  const lines = (await readFile(EVENTS, 'utf8')).split('\n').filter((l) => !l.includes('"session.start"'));
  await writeFile(path.join(dir, 'events.jsonl'), lines.join('\n'));
  await writeFile(path.join(dir, 'workspace.yaml'), 'id: x\ncwd: /home/dev/lighthouse\nsummary: |\n  Lamp timer\n  and more\n');
  const found = await discoverSources({ workspaceRoots: ['/home/dev/lighthouse'], claudeRoots: [], codexRoots: [], agentRoots: [path.dirname(dir)], extraRoots: [], includeSubagents: true });
  assert.deepEqual(found.map((s) => [s.adapter.agent, s.project]), [['copilot-cli', '/home/dev/lighthouse']]);
  const parsed = only(await parse(path.join(dir, 'events.jsonl')));
  assert.equal(parsed.meta.project, '/home/dev/lighthouse');
  assert.equal(parsed.meta.title, 'Lamp timer\nand more', "a block scalar's lines");
});

test('discovery by layout: both forms found; a bare log whose folder form exists is not read; a session\'s own folders are not walked', async () => {
  const root = path.join(tempDir(), 'session-state');
  await cp(STATE, root, { recursive: true });
  // the same session in both forms (an upgrade): the folder's log is the one read
  const sid = '8b2e6f10-7a3c-4d59-a1e8-5c9d0f7b3e24';
  await mkdir(path.join(root, sid), { recursive: true });
  await cp(path.join(root, `${sid}.jsonl`), path.join(root, sid, 'events.jsonl'));
  // what the agent made during a session (and its checkpoints) is not a transcript, even when it looks like one
  await mkdir(path.join(root, sid, 'files'), { recursive: true });
  await cp(EVENTS, path.join(root, sid, 'files', 'replayed.jsonl'));
  const options = { workspaceRoots: [], claudeRoots: [], codexRoots: [], extraRoots: [path.dirname(root)], includeSubagents: true };
  const found = await discoverSources(options);
  assert.deepEqual(
    found.map((s) => [s.adapter.agent, path.relative(root, s.path), s.project]),
    [
      ['copilot-cli', path.join(sid, 'events.jsonl'), '/home/dev/harbour'],
      ['copilot-cli', path.join('c41d2e7f-harbour-resumed', 'events.jsonl'), '/home/dev/harbour'],
    ],
  );
  // with the folder form gone, the bare log is read again
  await rm(path.join(root, sid), { recursive: true });
  assert.equal((await discoverSources(options)).length, 2);
});

test('default locations: ~/.copilot/session-state, COPILOT_HOME, and $XDG_CONFIG_HOME/.copilot of older builds; watched like every root', () => {
  assert.deepEqual(defaultCopilotCliRoots({}), [path.join(os.homedir(), '.copilot', 'session-state')]);
  assert.deepEqual(defaultCopilotCliRoots({ COPILOT_HOME: '/opt/cp', XDG_CONFIG_HOME: '/x/config' }), [
    path.join('/opt/cp', 'session-state'),
    path.join('/x/config', '.copilot', 'session-state'),
  ]);
  const roots = transcriptRoots(defaultDiscovery({ workspaceRoots: ['/w'], userDataDirs: [] }, { COPILOT_HOME: '/opt/cp' }));
  assert.ok(roots.includes(path.join('/opt/cp', 'session-state')), roots.join(', '));
});

test('live: a session indexed while its next prompt is half-written gains the new exchange from its last exchange on; a renamed session (workspace.yaml alone) is read again', async () => {
  const dir = path.join(tempDir(), 'session-state', 'live');
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, 'events.jsonl');
  const yaml = path.join(dir, 'workspace.yaml');
  const bytes = await readFile(EVENTS);
  await writeFile(file, bytes);
  await writeFile(yaml, 'name: First name\n');
  const store = await Store.open(path.join(tempDir(), 's.sqlite'));
  try {
    await indexSource(store, file, copilotCliAdapter, segment);
    assert.equal((await store.stats()).exchanges, 2);
    const ts = '2026-03-14T09:00:20.000Z';
    const more = [
      { type: 'user.message', data: { content: 'Update the test to expect 120 and run it again, please.' }, id: 'e99', timestamp: ts },
      { type: 'assistant.message', data: { content: 'Done: `test/limit.test.ts` now expects 120 and all 8 limiter tests pass.' }, id: 'e100', timestamp: ts },
    ];
    // the half-written line is finished, and another appended
    const text = bytes.toString('utf8');
    await writeFile(file, `${text.slice(0, text.lastIndexOf('\n') + 1)}${more.map((m) => JSON.stringify(m)).join('\n')}\n`);
    await writeFile(yaml, 'name: Tide rate limit from the environment\n');
    await indexSource(store, file, copilotCliAdapter, segment);
    const rows = await store.listExchanges();
    assert.equal(rows.length, 3);
    assert.deepEqual(rows.map((r) => r.prompt.slice(0, 18)).sort(), ['Run the limiter te', 'The tide API answe', 'Update the test to']);
    const conv = await store.db.get<{ title: string }>('SELECT title FROM conversations');
    assert.equal(conv?.title, 'Tide rate limit from the environment');
    assert.equal(await indexSource(store, file, copilotCliAdapter, segment), 'unchanged');
  } finally {
    await store.close();
  }
});
