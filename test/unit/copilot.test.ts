import assert from 'node:assert/strict';
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { test } from 'node:test';
import { indexSources } from '../../src/core/indexer';
import type { Conversation } from '../../src/core/model';
import type { ParseOutput, SourceAdapter } from '../../src/core/sources/adapter';
import { editorAgentRoots, userDataDirOf } from '../../src/core/sources/agentRoots';
import { copilotAdapter, copilotLogAdapter, uriToPath } from '../../src/core/sources/copilot';
import { discoverSources } from '../../src/core/sources/discover';
import { parsesAsJson, splitLines } from '../../src/core/sources/lines';
import { segmentConversation } from '../../src/core/segment';
import { Store } from '../../src/core/store/store';
import { FIXTURES, tempDir } from './helpers';

const STORAGE = path.join(FIXTURES, 'copilot', 'workspaceStorage', '7f3e2a');
const LOG = path.join(STORAGE, 'chatSessions', 'copilot-session-1.jsonl');
const EXPORT = path.join(FIXTURES, 'copilot', 'export.json');
const segment = { minChars: 100, maxPlies: 20 };

function parseBytes(adapter: SourceAdapter, file: string, buf: Buffer): ParseOutput {
  const lines = splitLines(buf, 0, 1, { holdBackPartial: adapter.lineFormat === 'jsonl', isComplete: parsesAsJson }).lines;
  return adapter.parse({ file, lines });
}

async function parse(adapter: SourceAdapter, file: string): Promise<ParseOutput> {
  return parseBytes(adapter, file, await readFile(file));
}

function only(out: ParseOutput): Conversation {
  assert.equal(out.conversations.length, 1);
  return out.conversations[0]!;
}

function shape(conv: Conversation): string[] {
  return conv.messages.map((m) => `${m.kind} ${m.line}-${m.lineEnd}`);
}

test('mutation log: appends, a response truncated and rewritten, a request replaced by truncation, a deletion', async () => {
  const out = await parse(copilotLogAdapter, LOG);
  const conv = only(out);
  assert.deepEqual(shape(conv), [
    'prompt 1-1', 'reply 1-1', 'tool-results 1-1', // in the initial state
    'prompt 2-5', 'reply 2-5', 'tool-results 2-5', // appended on line 2, its response set and rewritten up to line 5
    'prompt 7-9', 'reply 7-9', // line 7 truncated the requests to 2 and appended this one; line 9 deleted its followups
  ]);
  assert.deepEqual(
    conv.messages.filter((m) => m.kind === 'prompt').map((m) => m.text),
    [
      'Where do we convert harbour codes before the station lookup?',
      'Upper-case the code there and add a test for brest.',
      'Run the tide tests again and tell me what fails now.',
    ],
  );
  assert.ok(!conv.messages.some((m) => m.text.includes('Working on it')), 'the truncated partial response is gone');
  assert.ok(!conv.messages.some((m) => m.text.includes('sitemap')), 'the request replaced by truncation is gone');
  assert.deepEqual(conv.meta, {
    agent: 'copilot', sessionId: 'copilot-session-1', line: 1, isSubagent: false, title: 'Harbour code lookup',
    startedAt: '2025-11-02T09:59:50.000Z', model: 'copilot/gpt-5',
  });
  // line 1: a response part kind of a later VS Code; line 10: an unknown entry kind
  assert.deepEqual(out.skipped.map((s) => `${s.line} ${s.reason}`).sort(), ['1 unknown-record', '10 unknown-record']);
  assert.equal(conv.messages[1]!.text, 'Nowhere yet: tides.ts passes `req.params.code` straight to `STATIONS`, whose keys are upper-case, so `brest` finds nothing.');
  assert.deepEqual(conv.messages[0]!.uuid, 'request_a1');
});

test('mutation log: exchanges and files touched (tool inputs, the edit group with its lines, the code block target)', async () => {
  const conv = only(await parse(copilotLogAdapter, LOG));
  conv.meta = { ...conv.meta, project: '/home/dev/tidepool' };
  const { exchanges } = segmentConversation(conv, segment);
  assert.deepEqual(exchanges.map((e) => [e.lineStart, e.lineEnd]), [[1, 1], [2, 5], [7, 9]]);
  // the bare name tides.ts in the text is the file the tool read (files.ts), not a second file
  assert.deepEqual(exchanges[0]!.filesTouched, [{ path: 'src/routes/tides.ts', how: 'read', lines: [{ start: 1, end: 40 }] }]);
  assert.deepEqual(exchanges[1]!.filesTouched, [
    { path: 'test/tides.test.ts', how: 'write' },
    { path: 'src/routes/tides.ts', how: 'edit', lines: [{ start: 12, end: 12 }] },
  ]);
  assert.match(exchanges[1]!.verbatim, /^\[tool\] replace_string_in_file \/home\/dev\/tidepool\/src\/routes\/tides\.ts$/m);
  assert.match(exchanges[1]!.verbatim, /^\[result\] The following files were successfully edited:$/m, 'the prompt-tsx result tree as text');
});

test('a compacted log (one whole-state line) gives the same exchanges as the log it replaces', async () => {
  const replayed = only(await parse(copilotLogAdapter, LOG));
  const compacted = `${JSON.stringify({ kind: 0, v: finalState(await readFile(LOG, 'utf8')) })}\n`;
  const conv = only(parseBytes(copilotLogAdapter, LOG, Buffer.from(compacted)));
  const strip = (c: Conversation): unknown => c.messages.map((m) => ({ ...m, line: 0, lineEnd: 0, offset: 0 }));
  assert.deepEqual(strip(conv), strip(replayed));
  assert.deepEqual(shape(conv), ['prompt 1-1', 'reply 1-1', 'tool-results 1-1', 'prompt 1-1', 'reply 1-1', 'tool-results 1-1', 'prompt 1-1', 'reply 1-1']);
  const ids = (c: Conversation): string[] => segmentConversation(c, segment).exchanges.map((e) => e.id);
  assert.deepEqual(ids(conv), ids(replayed), 'ids come from request ids, not lines');
});

test('a compacted log whose whole-state line is over 8M characters still gives its session', async () => {
  const state = finalState(await readFile(LOG, 'utf8')) as { requests: Array<Record<string, unknown>> };
  // a long session: one request carries a 9M-character answer (a transcript record that long would be skipped)
  state.requests[0]!['response'] = [{ value: `The harbour code lookup is case-sensitive. ${'x'.repeat(9 * 1024 * 1024)}` }];
  const out = parseBytes(copilotLogAdapter, LOG, Buffer.from(`${JSON.stringify({ kind: 0, v: state })}\n`));
  assert.deepEqual(out.skipped, []);
  assert.equal(only(out).messages.filter((m) => m.kind === 'prompt').length, 3);
  assert.match(only(out).messages[1]!.text, /^The harbour code lookup is case-sensitive/);
});

/** The state the fixture log describes, written out by hand (what VS Code's compaction would write). */
function finalState(log: string): unknown {
  const entries = log.trim().split('\n').map((l) => JSON.parse(l) as { kind: number; v: Record<string, unknown> });
  const state = structuredClone(entries[0]!.v) as { requests: Array<Record<string, unknown>>; customTitle?: string };
  const b = (entries[1]!.v as unknown as Array<Record<string, unknown>>)[0]!;
  state.requests.push({ ...b, response: entries[4]!.v, result: entries[3]!.v });
  const c4 = { ...(entries[6]!.v as unknown as Array<Record<string, unknown>>)[0]! };
  delete c4['followups'];
  state.requests.push(c4);
  state.customTitle = 'Harbour code lookup';
  return state;
}

test('an exported chat: each request spans its pretty-printed record; the session id comes from its results', async () => {
  const conv = only(await parse(copilotAdapter, EXPORT));
  assert.equal(conv.meta.sessionId, 'copilot-session-1');
  assert.deepEqual(shape(conv), [
    'prompt 6-99', 'reply 6-99', 'tool-results 6-99',
    'prompt 100-205', 'reply 100-205', 'tool-results 100-205',
    'prompt 206-224', 'reply 206-224',
  ]);
  assert.deepEqual(segmentConversation(conv, segment).exchanges.map((e) => [e.lineStart, e.lineEnd]), [[6, 99], [100, 205], [206, 224]]);
});

test('URIs of workspace.json: local, Windows, remote', () => {
  assert.equal(uriToPath('file:///home/dev/tide%20pool'), '/home/dev/tide pool');
  assert.equal(uriToPath('file:///c%3A/Users/dev/tidepool'), 'c:\\Users\\dev\\tidepool');
  assert.equal(uriToPath('vscode-remote://ssh-remote%2Bbuildbox/home/dev/tidepool'), '/home/dev/tidepool');
  assert.equal(uriToPath('not a uri'), undefined);
});

/** A user-data folder with workspace storages; returns the `workspaceStorage` root. */
async function userData(storages: Record<string, { workspace?: unknown; sessions: Record<string, string> }>): Promise<string> {
  const root = path.join(tempDir(), 'User', 'workspaceStorage');
  for (const [id, s] of Object.entries(storages)) {
    await mkdir(path.join(root, id, 'chatSessions'), { recursive: true });
    await mkdir(path.join(root, id, 'ms-python.python'), { recursive: true });
    await writeFile(path.join(root, id, 'ms-python.python', 'cache.json'), '{"requests": [], "creationDate": 1}');
    if (s.workspace) await writeFile(path.join(root, id, 'workspace.json'), JSON.stringify(s.workspace));
    for (const [name, from] of Object.entries(s.sessions)) await copyFile(from, path.join(root, id, 'chatSessions', name));
  }
  return root;
}

test('discovery: a session belongs to the workspace its storage folder names (remote and multi-root included)', async () => {
  const root = await userData({
    a1: { workspace: { folder: 'file:///home/dev/tidepool' }, sessions: { 's.jsonl': LOG } },
    b2: { workspace: { folder: 'vscode-remote://ssh-remote%2Bbox/srv/tidepool' }, sessions: { 's.jsonl': LOG } },
    c3: { workspace: { folder: 'file:///home/dev/other' }, sessions: { 's.jsonl': LOG } },
    d4: { sessions: { 's.json': EXPORT } }, // no workspace.json: attributed to nothing
  });
  const multi = path.join(path.dirname(root), 'tide.code-workspace');
  await writeFile(multi, JSON.stringify({ folders: [{ path: '../../docs' }, { path: '/home/dev/tidepool/api' }] }));
  await mkdir(path.join(root, 'e5', 'chatSessions'), { recursive: true });
  await writeFile(path.join(root, 'e5', 'workspace.json'), JSON.stringify({ workspace: `file://${multi}` }));
  await copyFile(EXPORT, path.join(root, 'e5', 'chatSessions', 's.json'));
  const base = { claudeRoots: [], codexRoots: [], agentRoots: [root], extraRoots: [], includeSubagents: true };
  const found = await discoverSources({ ...base, workspaceRoots: ['/home/dev/tidepool', '/srv/tidepool'] });
  assert.deepEqual(
    found.map((s) => [path.relative(root, s.path), s.adapter === copilotLogAdapter ? 'log' : 'json', s.project]),
    [
      ['a1/chatSessions/s.jsonl', 'log', '/home/dev/tidepool'],
      ['b2/chatSessions/s.jsonl', 'log', '/srv/tidepool'],
      ['e5/chatSessions/s.json', 'json', '/home/dev/tidepool/api'],
    ],
  );
  // no workspace open: everything, the extension's own storage of other extensions never looked at
  const all = await discoverSources({ ...base, workspaceRoots: [] });
  assert.deepEqual(all.map((s) => path.relative(root, s.path)), [
    'a1/chatSessions/s.jsonl', 'b2/chatSessions/s.jsonl', 'c3/chatSessions/s.jsonl', 'd4/chatSessions/s.json', 'e5/chatSessions/s.json',
  ]);
});

test('a chat export (no project recorded) in a folder the user named is this workspace\'s; a session with another cwd is not', async () => {
  const named = path.join(tempDir(), 'chat-exports');
  await mkdir(named, { recursive: true });
  await copyFile(EXPORT, path.join(named, 'harbour-codes.json'));
  const elsewhere = { sessionId: 's-far', cwd: '/home/dev/other-project', version: '2.0.0' };
  await writeFile(path.join(named, 's-far.jsonl'), [
    JSON.stringify({ ...elsewhere, type: 'user', uuid: 'f1', message: { role: 'user', content: 'Why does the other project build so slowly on CI?' } }),
    JSON.stringify({ ...elsewhere, type: 'assistant', uuid: 'f2', message: { id: 'mf', role: 'assistant', content: [{ type: 'text', text: 'Its cache key changes on every run.' }] } }),
  ].join('\n') + '\n');
  const options = { claudeRoots: [], codexRoots: [], agentRoots: [], extraRoots: [named], includeSubagents: true };
  const found = await discoverSources({ ...options, workspaceRoots: ['/home/dev/tidepool'] });
  assert.deepEqual(found.map((s) => [path.basename(s.path), s.project]), [['harbour-codes.json', '/home/dev/tidepool']]);

  const store = await Store.open(path.join(tempDir(), 's.sqlite'));
  try {
    const report = await indexSources(store, found, { ...segment, workspaceRoot: '/home/dev/tidepool' });
    assert.deepEqual([report.failed, report.exchangesWritten > 0], [[], true]);
    const projects = new Set((await store.listExchanges()).map((e) => e.project));
    assert.deepEqual([...projects], ['/home/dev/tidepool']);
  } finally {
    await store.close();
  }
});

test('a session copied to a second workspace storage is one memory: stored once, both files kept as sources', async () => {
  const root = await userData({
    a1: { workspace: { folder: 'file:///home/dev/tidepool' }, sessions: { 'copilot-session-1.jsonl': LOG } },
    b2: { workspace: { folder: 'file:///home/dev/tidepool' }, sessions: { 'copilot-session-1.json': EXPORT } },
  });
  const store = await Store.open(path.join(tempDir(), 's.sqlite'));
  try {
    const sources = await discoverSources({
      workspaceRoots: ['/home/dev/tidepool'], claudeRoots: [], codexRoots: [], agentRoots: [root], extraRoots: [], includeSubagents: true,
    });
    assert.equal(sources.length, 2);
    const report = await indexSources(store, sources, { ...segment, workspaceRoot: '/home/dev/tidepool' });
    assert.equal(report.exchangesWritten, 3);
    assert.equal(report.duplicates, 3);
    const stats = await store.stats();
    assert.equal(stats.exchanges, 3);
    assert.equal(stats.sources, 2);
    for (const row of await store.listExchanges()) {
      const e = await store.getExchange(row.exchangeId);
      assert.equal(e?.copies?.length, 1, 'the other workspace\'s file is kept as provenance');
      assert.notEqual(e!.copies![0]!.file, e!.file);
    }
  } finally {
    await store.close();
  }
});

test("the editor's user-data folder from the extension's own storage folders; the chat folders under it", () => {
  const ud = path.join(path.sep, 'home', 'dev', '.config', 'Code');
  assert.equal(userDataDirOf(path.join(ud, 'User', 'workspaceStorage', 'a1b2', 'agent-recall.agent-recall')), ud);
  assert.equal(userDataDirOf(path.join(ud, 'User', 'globalStorage', 'agent-recall.agent-recall')), ud);
  assert.equal(userDataDirOf(path.join(path.sep, 'tmp', 'storage')), undefined, 'not a VS Code layout: nothing guessed');
  assert.deepEqual(editorAgentRoots(ud), [
    path.join(ud, 'User', 'workspaceStorage'),
    path.join(ud, 'User', 'globalStorage', 'emptyWindowChatSessions'),
    path.join(ud, 'User', 'globalStorage', 'saoudrizwan.claude-dev', 'tasks'),
    path.join(ud, 'User', 'globalStorage', 'rooveterinaryinc.roo-cline', 'tasks'),
    path.join(ud, 'User', 'globalStorage', 'state.vscdb'),
    path.join(ud, 'User', 'globalStorage', 'sourcegraph.amp', 'threads3'),
    path.join(ud, 'User', 'globalStorage', 'kilocode.kilo-code', 'tasks'),
    path.join(ud, 'User', 'globalStorage', 'kiro.kiroagent'),
  ]);
});

test('the files a request attached (a file, the editor\'s selection, the implicit active file) are mentioned by its prompt; instructions files and images are not', () => {
  const uri = (p: string): unknown => ({ $mid: 1, fsPath: p, external: `file://${p}`, path: p, scheme: 'file' });
  const request = (id: string, text: string, variables: unknown[]): unknown => ({
    requestId: id, timestamp: 1762077600000, message: { text }, variableData: { variables },
    response: [{ value: `An answer about ${text.toLowerCase()} that is long enough to keep as an exchange of its own.` }],
  });
  const session = {
    version: 3, sessionId: 'attach-1', creationDate: 1762077590000, requesterUsername: 'dev', responderUsername: 'GitHub Copilot',
    requests: [
      request('r1', 'Is there a similar facility for application charts?', [
        { kind: 'file', id: 'vscode.implicit.selection', name: 'file:Chart.yaml', modelDescription: "User's active selection",
          value: { uri: uri('/home/dev/charts/Chart.yaml'), range: { startLineNumber: 14, startColumn: 1, endLineNumber: 16, endColumn: 29 } } },
        { kind: 'promptFile', id: 'vscode.prompt.instructions.root__file:///home/dev/charts/AGENTS.md', name: 'prompt:AGENTS.md', value: uri('/home/dev/charts/AGENTS.md') },
        { kind: 'image', id: 'img', name: 'screenshot.png', value: {} },
      ]),
      // an older VS Code: the active file as an implicit entry, and a file picked with #file
      request('r2', 'Why does the values file not reach the child?', [
        { kind: 'implicit', id: 'vscode.implicit.file', name: 'file:values.yaml', isFile: true, value: uri('/home/dev/charts/values.yaml') },
        { kind: 'file', id: 'file:///home/dev/charts/templates/deploy.yaml', name: 'file:deploy.yaml', value: uri('/home/dev/charts/templates/deploy.yaml') },
      ]),
    ],
  };
  const conv = only(parseBytes(copilotAdapter, '/home/dev/.config/Code/User/workspaceStorage/ab/chatSessions/attach-1.json', Buffer.from(JSON.stringify(session, null, 2))));
  conv.meta = { ...conv.meta, project: '/home/dev/charts' };
  const { exchanges } = segmentConversation(conv, segment);
  assert.deepEqual(exchanges.map((e) => e.filesTouched), [
    [{ path: 'Chart.yaml', how: 'mention' }],
    [{ path: 'templates/deploy.yaml', how: 'mention' }, { path: 'values.yaml', how: 'mention' }],
  ]);
});
