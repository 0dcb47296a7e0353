import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { test } from 'node:test';
import { indexSource } from '../../src/core/indexer';
import type { Conversation } from '../../src/core/model';
import type { ParseOutput, SourceAdapter } from '../../src/core/sources/adapter';
import { discoverSources } from '../../src/core/sources/discover';
import { geminiAdapter, geminiLogAdapter } from '../../src/core/sources/gemini';
import { parsesAsJson, splitLines } from '../../src/core/sources/lines';
import { segmentConversation } from '../../src/core/segment';
import { Store } from '../../src/core/store/store';
import { FIXTURES, tempDir } from './helpers';

const DOC = path.join(FIXTURES, 'gemini', 'session-2025-11-02T10-00-5e1f0a2b.json');
const LOG = path.join(FIXTURES, 'gemini', 'session-2025-11-03T08-00-9a8b7c6d.jsonl');
const segment = { minChars: 100, maxPlies: 20 };

async function parse(adapter: SourceAdapter, file: string, bytes?: Buffer): Promise<ParseOutput> {
  const buf = bytes ?? (await readFile(file));
  const lines = splitLines(buf, 0, 1, { holdBackPartial: adapter.lineFormat === 'jsonl', isComplete: parsesAsJson }).lines;
  return adapter.parse({ file, lines });
}

function only(out: ParseOutput): Conversation {
  assert.equal(out.conversations.length, 1);
  return out.conversations[0]!;
}

function shape(conv: Conversation): string[] {
  return conv.messages.map((m) => `${m.kind} ${m.line}-${m.lineEnd}`);
}

test('.json document: each message spans the lines of its record; info notices dropped, unknown types counted', async () => {
  const out = await parse(geminiAdapter, DOC);
  const conv = only(out);
  assert.deepEqual(conv.meta, {
    agent: 'gemini',
    sessionId: '5e1f0a2b-7c3d-4e8f-9a0b-1c2d3e4f5a6b',
    line: 1,
    isSubagent: false,
    title: 'Fix lowercase harbour codes in the tide chart endpoint',
    startedAt: '2025-11-02T10:00:00.000Z',
    model: 'gemini-2.5-pro',
  });
  assert.deepEqual(shape(conv), [
    'prompt 13-18',
    'reply 19-66',
    'tool-results 19-66',
    'reply 67-97',
    'tool-results 67-97',
    'reply 98-104',
    'prompt 105-114',
    'reply 115-144',
    'tool-results 115-144',
    'context 145-150',
    'reply 151-157',
  ]);
  assert.deepEqual(out.skipped, [{ line: 158, reason: 'unknown-record' }], 'the record type of a later version');
  const [prompt, reply, results] = conv.messages;
  assert.equal(prompt!.uuid, 'm-user-1');
  assert.equal(prompt!.timestamp, '2025-11-02T10:00:05.000Z');
  assert.deepEqual(reply!.toolCalls, [{ id: 'read_file-1', name: 'read_file', input: { file_path: 'src/routes/tides.ts', offset: 10, limit: 30 } }]);
  assert.equal(reply!.text, 'I will read the handler first.', 'thoughts are not the reply');
  assert.deepEqual(results!.toolResults, [
    { toolUseId: 'read_file-1', text: "const station = STATIONS[req.params.code];\nif (!station) throw new Error('unknown');", isError: false },
  ]);
  assert.equal(conv.messages[6]!.text, 'Run the tide tests.', 'content given as API parts');
  assert.equal(conv.messages[8]!.toolResults[0]!.isError, true, 'a failed call is an error result');
  assert.equal(conv.messages[9]!.text, '[gemini error] [API Error: quota exceeded for gemini-2.5-pro]');
});

test('.json document: exchanges, their line ranges and files touched', async () => {
  const conv = only(await parse(geminiAdapter, DOC));
  conv.meta = { ...conv.meta, project: '/home/dev/tidepool' };
  const { exchanges, dropped } = segmentConversation(conv, segment);
  assert.deepEqual(dropped, []);
  assert.deepEqual(
    exchanges.map((e) => [e.lineStart, e.lineEnd, e.prompt]),
    [
      [13, 104, 'The tide chart endpoint returns 500 when the harbour code is lowercase. Find out why and fix it.'],
      [105, 157, 'Run the tide tests.'],
    ],
  );
  // read (lines 11-40) then edited by `replace`, which records no lines: the lines read are not lines edited
  assert.deepEqual(exchanges[0]!.filesTouched, [{ path: 'src/routes/tides.ts', how: 'edit' }]);
  assert.match(exchanges[0]!.verbatim, /^\[tool\] replace src\/routes\/tides\.ts$/m);
  assert.match(exchanges[1]!.verbatim, /^\[error\] Command exited with code 1/m);
});

test('.jsonl log: repeated ids replace, $set patches the title, $rewindTo drops the undone turn, a partial line waits', async () => {
  const out = await parse(geminiLogAdapter, LOG);
  const conv = only(out);
  assert.deepEqual(shape(conv), ['prompt 2-2', 'reply 3-4', 'tool-results 3-4', 'prompt 9-9', 'reply 10-10', 'tool-results 10-10']);
  assert.equal(conv.meta.title, 'Tile cache expiry units');
  assert.equal(conv.meta.sessionId, '9a8b7c6d-0000-4e8f-9a0b-1c2d3e4f5a6b');
  assert.match(conv.messages[1]!.text, /maxAge` in seconds/, 'the later version of g1 wins');
  assert.deepEqual(conv.messages[2]!.toolResults, [{ toolUseId: 'grep-1', text: 'src/cache/tiles.ts:12: maxAge: 86400', isError: false }]);
  assert.ok(!conv.messages.some((m) => /Delete the whole cache|are you sure/.test(m.text)), 'the rewound turn is gone');
  assert.deepEqual(out.skipped, [{ line: 11, reason: 'unknown-record' }], 'an unknown operation is counted');
  const { exchanges } = segmentConversation({ ...conv, meta: { ...conv.meta, project: '/home/dev/tidepool' } }, segment);
  assert.deepEqual(exchanges.map((e) => [e.lineStart, e.lineEnd]), [[2, 4], [9, 10]]);
  // src/cache/store.ts is only named in the reply and no such file exists here: not a file touched (files.ts)
  assert.deepEqual(exchanges[1]!.filesTouched, [{ path: 'src/cache/store.test.ts', how: 'write' }]);
});

test('a rewind to an unknown id clears the history, as the CLI does', async () => {
  const lines = [
    JSON.stringify({ sessionId: 's', projectHash: 'a'.repeat(64), startTime: '2025-11-03T08:00:00.000Z' }),
    JSON.stringify({ id: 'u1', type: 'user', content: 'first question about the harbour tide cache' }),
    JSON.stringify({ id: 'g1', type: 'gemini', content: 'first answer about the harbour tide cache' }),
    JSON.stringify({ $rewindTo: 'nope' }),
  ];
  const out = await parse(geminiLogAdapter, '/tmp/session-x.jsonl', Buffer.from(lines.join('\n') + '\n'));
  assert.deepEqual(out.conversations, []);
});

test('a half-written .json document is an error that keeps the stored exchanges and is read again later', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'session-2025-11-02T10-00-5e1f0a2b.json');
  await copyFile(DOC, file);
  const store = await Store.open(path.join(dir, 's.sqlite'));
  try {
    await indexSource(store, file, geminiAdapter, segment);
    const before = (await store.stats()).exchanges;
    assert.equal(before, 2);
    const bytes = await readFile(DOC);
    await writeFile(file, bytes.subarray(0, Math.floor(bytes.length / 2)));
    await assert.rejects(indexSource(store, file, geminiAdapter, segment), /not a complete JSON document.*read again/);
    assert.equal((await store.stats()).exchanges, before, 'nothing lost');
    await writeFile(file, bytes);
    // read again: the bytes it had when stored, so there is nothing to parse (sources.file_hash)
    const again = await indexSource(store, file, geminiAdapter, segment);
    assert.equal(again, 'unchanged');
    assert.equal((await store.stats()).exchanges, before);
  } finally {
    await store.close();
  }
});

/** A `~/.gemini/tmp/<dir>/chats/` layout with the fixture document in it. */
async function geminiHome(dirName: string): Promise<{ home: string; file: string }> {
  const home = path.join(tempDir(), '.gemini');
  const chats = path.join(home, 'tmp', dirName, 'chats');
  await mkdir(chats, { recursive: true });
  const file = path.join(chats, 'session-2025-11-02T10-00-5e1f0a2b.json');
  await copyFile(DOC, file);
  return { home, file };
}

test('project: the workspace folder whose sha256 is the projectHash; another workspace does not get it', async () => {
  const { home, file } = await geminiHome('hashed');
  const workspace = path.join(path.dirname(home), 'tidepool');
  const doc = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
  doc['projectHash'] = createHash('sha256').update(workspace).digest('hex');
  await writeFile(file, JSON.stringify(doc, null, 2));
  const options = { claudeRoots: [], codexRoots: [], agentRoots: [path.join(home, 'tmp')], extraRoots: [], includeSubagents: true };
  const mine = await discoverSources({ ...options, workspaceRoots: [workspace] });
  assert.deepEqual(mine.map((s) => [s.path, s.adapter.agent, s.project]), [[file, 'gemini', workspace]]);
  assert.deepEqual(await discoverSources({ ...options, workspaceRoots: [path.join(path.dirname(home), 'other')] }), []);
});

test("one project rule for every agent: a Gemini CLI session of another project in a folder the user named is not this workspace's (issue 39)", async () => {
  const { home, file } = await geminiHome('elsewhere');
  const options = { claudeRoots: [], codexRoots: [], agentRoots: [], extraRoots: [home], includeSubagents: true };
  // its projectHash is another folder's and no .project_root names one: it was attributed to the workspace
  assert.deepEqual(await discoverSources({ ...options, workspaceRoots: ['/home/dev/tidepool'] }), []);
  await writeFile(path.join(home, 'tmp', 'elsewhere', '.project_root'), '/home/dev/tidepool/app\n');
  const found = await discoverSources({ ...options, workspaceRoots: ['/home/dev/tidepool'] });
  assert.deepEqual(found.map((s) => [s.path, s.project]), [[file, '/home/dev/tidepool/app']], 'where its records place it, it counts');
});

test('project: a slug folder names its project in .project_root', async () => {
  const { home, file } = await geminiHome('tidepool');
  await writeFile(path.join(home, 'tmp', 'tidepool', '.project_root'), '/home/dev/tidepool\n');
  const found = await discoverSources({
    workspaceRoots: ['/home/dev/tidepool'], claudeRoots: [], codexRoots: [], agentRoots: [path.join(home, 'tmp')], extraRoots: [], includeSubagents: true,
  });
  assert.deepEqual(found.map((s) => [s.path, s.project]), [[file, '/home/dev/tidepool']]);
  const store = await Store.open(path.join(tempDir(), 's.sqlite'));
  try {
    await indexSource(store, found[0]!.path, found[0]!.adapter, segment, found[0]!.project);
    const rows = await store.listExchanges();
    assert.deepEqual(rows.map((r) => r.project), ['/home/dev/tidepool', '/home/dev/tidepool']);
  } finally {
    await store.close();
  }
});

const NEWER_LOG = path.join(FIXTURES, 'gemini', 'session-2026-06-01T09-00-4c1d2e3f.jsonl');
const REFERENCES_DOC = path.join(FIXTURES, 'gemini', 'session-2025-12-20T10-00-6e2f3a4b.json');

test('newer CLI versions: the prompt is what the person typed (displayContent); the session context, hook context and the CLI\'s "Please continue." are nobody\'s prompt', async () => {
  const conv = only(await parse(geminiLogAdapter, NEWER_LOG));
  const prompts = conv.messages.filter((m) => m.kind === 'prompt');
  assert.deepEqual(prompts.map((m) => m.text), [
    'why does @tides.ts return NaN for lowercase harbour codes',
    '/review tides',
    'run the harbour tests',
  ]);
  assert.deepEqual(prompts[0]!.touched, [{ path: 'src/routes/tides.ts', how: 'mention' }], 'the file the @ reference sent');
  const all = conv.messages.map((m) => m.text).join('\n');
  assert.doesNotMatch(all, /session_context|This is the Gemini CLI|Always run the harbour fixtures/, 'the session context is left out');
  assert.doesNotMatch(all, /quokka-marker/, "the referenced file's text is not the prompt's");
  assert.doesNotMatch(all, /hook_context|fix-tides|update the changelog/, "a hook's context is left out");
  assert.doesNotMatch(all, /Please continue/);
  // the slash command's prompt, as the CLI sent it, is context after the command (as Claude Code's expansions are)
  const expansion = conv.messages[conv.messages.indexOf(prompts[1]!) + 1]!;
  assert.equal(expansion.kind, 'context');
  assert.match(expansion.text, /^Review the staged changes for correctness and style/);
  const { exchanges } = segmentConversation({ ...conv, meta: { ...conv.meta, project: '/home/dev/tidepool' } }, segment);
  assert.deepEqual(exchanges.map((e) => e.prompt), [
    'why does @tides.ts return NaN for lowercase harbour codes',
    '/review tides',
    'run the harbour tests',
  ]);
  assert.match(exchanges[0]!.verbatim, /Upper-casing the code/, "the answer after the CLI's nudge is the first prompt's");
  assert.match(exchanges[2]!.verbatim, /changelog gains a line/, "the answer to a hook's context is the prompt's before it");
  assert.deepEqual(exchanges[0]!.filesTouched, [{ path: 'src/routes/tides.ts', how: 'mention' }]);
});

test('older CLI versions (no displayContent): an @ reference\'s file contents are cut from the prompt, "System: Please continue." is the CLI\'s', async () => {
  const conv = only(await parse(geminiAdapter, REFERENCES_DOC));
  const prompts = conv.messages.filter((m) => m.kind === 'prompt');
  assert.deepEqual(prompts.map((m) => m.text), [
    'compare @docs/harbours.md with @src/stations.ts and list the missing codes',
    // typed or sent by the CLI's next-speaker check: the record cannot tell, so it stays a prompt
    'Please continue.',
  ]);
  assert.deepEqual(prompts[0]!.touched, [
    { path: 'docs/harbours.md', how: 'mention' },
    { path: 'src/stations.ts', how: 'mention' },
  ]);
  assert.doesNotMatch(conv.messages.map((m) => m.text).join('\n'), /quokka-doc|Content from referenced files|System: Please continue/);
});

test("read_file's note to the model above a file it cut short is not the file's text", async () => {
  const note = (next: string): string =>
    `\nIMPORTANT: The file content has been truncated.\nStatus: Showing lines 1-50 of 158 total lines.\nAction: To read more of the file, ${next}\n\n--- FILE CONTENT (truncated) ---\n`;
  const call = (id: string, output: string): unknown => ({
    id, name: 'read_file', args: { file_path: '.config/kdeglobals', limit: 50 }, status: 'success',
    result: [{ functionResponse: { id, name: 'read_file', response: { output } } }],
  });
  const lines = [
    JSON.stringify({ sessionId: 's', projectHash: 'a'.repeat(64), startTime: '2025-12-30T07:25:00.000Z' }),
    JSON.stringify({ id: 'u1', type: 'user', content: 'why does Octopi stay light when the desktop is dark?' }),
    JSON.stringify({
      id: 'g1', type: 'gemini', content: 'Checking the colour scheme.',
      toolCalls: [
        // 0.22's wording, and a later one's (start_line)
        call('r1', `${note("you can use the 'offset' and 'limit' parameters in a subsequent 'read_file' call. For example, to read the next section of the file, use offset: 50.")}[ColorEffects:Disabled]\nColor=56,56,56`),
        call('r2', `${note("you can use the 'start_line' and 'end_line' parameters in a subsequent 'read_file' call. For example, to read the next section of the file, use start_line: 51.")}[General]\nColorScheme=BreezeDark`),
        call('r3', 'IMPORTANT: keep this line, it is the file'),
      ],
    }),
  ];
  const conv = only(await parse(geminiLogAdapter, '/tmp/session-y.jsonl', Buffer.from(lines.join('\n') + '\n')));
  assert.deepEqual(conv.messages[2]!.toolResults.map((r) => r.text), [
    '[ColorEffects:Disabled]\nColor=56,56,56',
    '[General]\nColorScheme=BreezeDark',
    'IMPORTANT: keep this line, it is the file',
  ]);
});

const TIDEPOOL = path.join(FIXTURES, 'gemini', 'tidepool');
const MASKED_DOC = path.join(TIDEPOOL, 'chats', 'session-2026-03-02T10-00-7a1b2c3d.json');
const PARENT_LOG = path.join(TIDEPOOL, 'chats', 'session-2026-05-04T08-00-5b6c7d8e.jsonl');
const SUBAGENT_LOG = path.join(TIDEPOOL, 'chats', '5b6c7d8e-1f2a-4b3c-8d4e-5f6a7b8c9d0e', 'q8w2e4.jsonl');
const MASK = '<tool_output_masked>';

test("a masked tool output (0.29+) is read from its file in the session's tool-outputs folder; one whose file is gone says it was masked", async () => {
  const conv = only(await parse(geminiAdapter, MASKED_DOC));
  const results = conv.messages.flatMap((m) => m.toolResults.map((r) => r.text));
  assert.equal(results.length, 2);
  // the whole output: the failing test is in no preview, only in the file
  assert.match(results[0]!, /^Command: npm test\nDirectory: \(root\)\nOutput: > tidepool@1\.4\.0 test/);
  assert.match(results[0]!, /FAIL src\/harbour\/lowercase\.test\.ts > tideHeight > rejects the unknown station zz/);
  assert.match(results[0]!, /Exit Code: 1/);
  assert.ok(!results[0]!.includes(MASK) && !results[0]!.includes('Output too large'));
  // its file is gone: said plainly, with the preview the CLI kept
  assert.match(results[1]!, /^\[Gemini CLI masked this output to save context; its whole text was not found beside the session\]\nexport const STATION_001/);
  assert.ok(!results[1]!.includes(MASK) && !results[1]!.includes('Full output available at'));
  const { exchanges } = segmentConversation({ ...conv, meta: { ...conv.meta, project: '/home/dev/tidepool' } }, segment);
  assert.deepEqual(exchanges[1]!.filesTouched, [{ path: 'src/harbour/stations.ts', how: 'read', lines: [{ start: 1, end: 59 }] }]);
});

test('a masked output\'s path is never followed: only its file name, only in the session\'s own tool-outputs folder', async () => {
  const project = path.join(tempDir(), 'tidepool');
  const chats = path.join(project, 'chats');
  const sid = '7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
  const folder = path.join(project, 'tool-outputs', `session-${sid}`);
  await mkdir(folder, { recursive: true });
  await mkdir(path.join(project, 'tool-outputs', 'session-other'), { recursive: true });
  await writeFile(path.join(project, 'secret.txt'), 'the project folder: not to be read');
  await writeFile(path.join(project, 'tool-outputs', 'session-other', 'other.txt'), "another session's: not to be read");
  await writeFile(path.join(folder, 'kept.txt'), 'the whole output of the session');
  const masked = (p: string): string => `${MASK}\npreview\n\nOutput too large. Full output available at: ${p}\n</tool_output_masked>`;
  const call = (id: string, p: string): unknown => ({
    id, name: 'run_shell_command', args: { command: 'ls' }, status: 'success',
    result: [{ functionResponse: { id, name: 'run_shell_command', response: { output: masked(p) } } }],
  });
  const doc = {
    sessionId: sid, projectHash: 'a'.repeat(64), startTime: '2026-03-02T10:00:00.000Z',
    messages: [
      { id: 'u1', type: 'user', content: 'list the harbour folder' },
      {
        id: 'g1', type: 'gemini', content: '', toolCalls: [
          call('c1', `${folder}/../../secret.txt`),
          call('c2', '/etc/passwd'),
          call('c3', `${path.dirname(folder)}/session-other/other.txt`),
          call('c4', `/somewhere/else/tool-outputs/session-${sid}/kept.txt`),
        ],
      },
    ],
  };
  const file = path.join(chats, 'session-2026-03-02T10-00-7a1b2c3d.json');
  await mkdir(chats, { recursive: true });
  await writeFile(file, JSON.stringify(doc, null, 2));
  const texts = only(await parse(geminiAdapter, file)).messages.flatMap((m) => m.toolResults.map((r) => r.text));
  const notFound = '[Gemini CLI masked this output to save context; its whole text was not found beside the session]\npreview';
  // `secret.txt` and `other.txt` are looked for in this session's folder, where they are not; `passwd` is no output file
  assert.deepEqual(texts, [notFound, notFound, notFound, 'the whole output of the session']);
});

test('a log that writes a record again with its outputs masked keeps the whole outputs of its earlier version', async () => {
  const conv = only(await parse(geminiLogAdapter, PARENT_LOG));
  const build = conv.messages.flatMap((m) => m.toolResults).find((r) => r.toolUseId === 'run_shell_command-1777880600000-0');
  assert.ok(build);
  assert.match(build.text, /compiled src\/module20\.ts/, 'a line the masked preview left out');
  assert.ok(!build.text.includes(MASK));
  // the subagent's call and its report are the parent's; what the subagent did is not
  const report = conv.messages.flatMap((m) => m.toolResults).find((r) => r.toolUseId === 'codebase_investigator-1777880460000-0');
  assert.match(report!.text, /^Subagent 'codebase_investigator' finished\./);
  assert.ok(!conv.messages.some((m) => m.toolCalls.some((c) => c.name === 'read_file' || c.name === 'complete_task')));
});

test("a subagent's chat (0.37+: chats/<parent session>/<id>.jsonl) is found and read as a conversation of its own, marked with its parent", async () => {
  const conv = only(await parse(geminiLogAdapter, SUBAGENT_LOG));
  assert.equal(conv.meta.sessionId, '5b6c7d8e-1f2a-4b3c-8d4e-5f6a7b8c9d0e/q8w2e4');
  assert.equal(conv.meta.isSubagent, true);
  assert.equal(conv.meta.parentSessionId, '5b6c7d8e-1f2a-4b3c-8d4e-5f6a7b8c9d0e');
  assert.equal(conv.meta.model, 'gemini-3-flash-preview');
  assert.deepEqual(conv.messages.map((m) => m.kind), ['prompt', 'reply', 'tool-results', 'reply', 'tool-results']);
  assert.match(conv.messages[0]!.text, /<objective>\nFind why lowercase harbour codes make tideHeight return NaN/);
  const { exchanges } = segmentConversation({ ...conv, meta: { ...conv.meta, project: '/home/dev/tidepool' } }, segment);
  assert.deepEqual(exchanges[0]!.filesTouched, [{ path: 'src/harbour/tides.ts', how: 'read', lines: [{ start: 1, end: 40 }] }]);

  const options = { workspaceRoots: [], claudeRoots: [], codexRoots: [], agentRoots: [], extraRoots: [TIDEPOOL] };
  const found = await discoverSources({ ...options, includeSubagents: true });
  assert.deepEqual(found.map((s) => [path.relative(TIDEPOOL, s.path), s.adapter.agent, s.adapter.lineFormat]), [
    [path.join('chats', '5b6c7d8e-1f2a-4b3c-8d4e-5f6a7b8c9d0e', 'q8w2e4.jsonl'), 'gemini', 'jsonl'],
    [path.join('chats', 'session-2026-03-02T10-00-7a1b2c3d.json'), 'gemini', 'json'],
    [path.join('chats', 'session-2026-05-04T08-00-5b6c7d8e.jsonl'), 'gemini', 'jsonl'],
  ]);
  const withoutSubagents = await discoverSources({ ...options, includeSubagents: false });
  assert.deepEqual(withoutSubagents.map((s) => path.basename(s.path)), ['session-2026-03-02T10-00-7a1b2c3d.json', 'session-2026-05-04T08-00-5b6c7d8e.jsonl']);

  // indexed together, each exchange is in one conversation only: the subagent's work in its own, the parent's call in the parent's
  const store = await Store.open(path.join(tempDir(), 's.sqlite'));
  try {
    for (const s of found) await indexSource(store, s.path, s.adapter, segment, '/home/dev/tidepool');
    const rows = await store.listExchanges();
    const of = (file: string): string[] => rows.filter((r) => path.basename(r.file) === file).map((r) => r.prompt);
    assert.deepEqual(of('q8w2e4.jsonl'), [conv.messages[0]!.text]);
    assert.deepEqual(of('session-2026-05-04T08-00-5b6c7d8e.jsonl'), [
      'investigate why lowercase harbour codes give NaN before changing anything', 'upper-case it first, then build', 'and the changelog?',
    ]);
  } finally {
    await store.close();
  }
});

test("a 0.31-0.36 subagent's chat beside its parent's carries the parent's session id: its own is the parent's and its file's", async () => {
  const file = path.join(tempDir(), 'chats', 'session-2026-03-10T09-05-7a1b2c3d.json');
  await mkdir(path.dirname(file), { recursive: true });
  const doc = {
    sessionId: '7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d', projectHash: 'a'.repeat(64), startTime: '2026-03-10T09:05:00.000Z', kind: 'subagent',
    messages: [
      { id: 'u1', type: 'user', content: [{ text: 'Get Started!' }] },
      { id: 'g1', type: 'gemini', content: 'The harbour module keys its stations by upper-case code.' },
    ],
  };
  await writeFile(file, JSON.stringify(doc, null, 2));
  const conv = only(await parse(geminiAdapter, file));
  assert.equal(conv.meta.sessionId, '7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d/session-2026-03-10T09-05-7a1b2c3d');
  assert.equal(conv.meta.isSubagent, true);
  assert.equal(conv.meta.parentSessionId, '7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d');
  // the main session's own document is not a subagent's
  await writeFile(file, JSON.stringify({ ...doc, kind: 'main' }, null, 2));
  const main = only(await parse(geminiAdapter, file));
  assert.deepEqual([main.meta.sessionId, main.meta.isSubagent], ['7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d', false]);
});

test("newer logs record whole turns (geminiChat.ts): a tool's response as a user record and a turn's thought part are no one's text", async () => {
  const lines = [
    JSON.stringify({ sessionId: 's', projectHash: 'a'.repeat(64), startTime: '2026-08-01T10:00:00.000Z', kind: 'main' }),
    JSON.stringify({ id: 'u1', type: 'user', content: [{ text: 'describe the harbour chart image' }] }),
    JSON.stringify({ id: 'g1', type: 'gemini', content: [{ functionCall: { id: 'r1', name: 'read_file', args: { file_path: 'chart.png' } } }] }),
    JSON.stringify({ id: 'u2', type: 'user', content: [{ functionResponse: { id: 'r1', name: 'read_file', response: { output: 'Binary content provided (1 item).' } } }] }),
    JSON.stringify({ id: 'g2', type: 'gemini', content: [{ text: 'Binary content received. Proceeding with analysis.', thought: true, thoughtSignature: 'x' }] }),
    JSON.stringify({ id: 'g3', type: 'gemini', content: [{ text: 'The chart shows two high tides, at 06:10 and 18:32.' }] }),
  ];
  const conv = only(await parse(geminiLogAdapter, '/tmp/session-z.jsonl', Buffer.from(lines.join('\n') + '\n')));
  assert.deepEqual(conv.messages.map((m) => [m.kind, m.text]), [
    ['prompt', 'describe the harbour chart image'],
    ['reply', 'The chart shows two high tides, at 06:10 and 18:32.'],
  ]);
});
