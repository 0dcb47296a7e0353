import { indexedPrompt } from '../../src/core/store/contentlessFts';
import assert from 'node:assert/strict';
import { readdirSync, statSync } from 'node:fs';
import { appendFile, copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { test } from 'node:test';
import { indexSource, indexSources, indexWorkspace } from '../../src/core/indexer';
import type { SourceAdapter } from '../../src/core/sources/adapter';
import { discoverSources } from '../../src/core/sources/discover';
import { parsesAsJson, splitLines } from '../../src/core/sources/lines';
import { ADAPTERS } from '../../src/core/sources/registry';
import { ftsSegments, MAX_SEGMENTS } from '../../src/core/store/ftsSegments';
import { HeldMerges } from '../../src/core/store/lexiconHold';
import { Store } from '../../src/core/store/store';
import { FIXTURES, tempDir } from './helpers';

const segment = { minChars: 100, maxPlies: 20 };

function fixtureFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const full = path.join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (/\.(jsonl?|md)$/.test(name)) out.push(full);
    }
  };
  walk(FIXTURES);
  return out.sort();
}

/** Fixture files with the adapter discovery picks for them (some fixtures are deliberately not transcripts). */
async function fixtureSources(): Promise<Array<{ path: string; adapter: SourceAdapter }>> {
  const found = await discoverSources({
    workspaceRoots: [],
    claudeRoots: [],
    codexRoots: [],
    extraRoots: [FIXTURES],
    includeSubagents: true,
  });
  return found.map((f) => ({ path: f.path, adapter: f.adapter }));
}

async function snapshot(store: Store): Promise<string[]> {
  const out: string[] = [];
  for (const s of await store.listExchanges()) {
    const e = await store.getExchange(s.exchangeId);
    out.push(JSON.stringify({ ...e, file: path.basename(e!.file), conversationId: undefined }));
  }
  return out;
}

test('fixtures exist for every agent and discovery finds a transcript in each agent folder', async () => {
  const sources = await fixtureSources();
  const adapters = new Set(sources.map((s) => s.adapter));
  // a database (Cursor's) is written by its own test (cursorFixture.ts) the way its agent writes it, not kept as a file
  const files = ADAPTERS.filter((a) => a.lineFormat !== 'sqlite');
  assert.deepEqual(files.filter((a) => !adapters.has(a)).map((a) => `${a.agent} (${a.lineFormat})`), [], 'every file form has a fixture');
  assert.ok(fixtureFiles().length >= sources.length);
});

test('every human prompt line lies in exactly one kept exchange or is counted as dropped; ranges never overlap', async () => {
  // a source of many files (OpenCode's storage) has no lines of its own: opencode.test.ts checks its record ranges
  for (const src of (await fixtureSources()).filter((s) => s.adapter.lineFormat !== 'files')) {
    const store = await Store.open(path.join(tempDir(), 'p.sqlite'));
    try {
      await indexSource(store, src.path, src.adapter, segment);
      // a one-line document (Cline, Roo Code) locates exchanges by byte offset, not line: its own tests check those
      if (!(await readFile(src.path, 'utf8')).trimEnd().includes('\n')) continue;
      const rows = (await store.listExchanges()).filter((r) => r.file === src.path);
      const sorted = [...rows].sort((a, b) => a.lineStart - b.lineStart);
      for (let i = 1; i < sorted.length; i++) {
        assert.ok(sorted[i]!.lineStart > sorted[i - 1]!.lineEnd, `${src.path}: ranges overlap at line ${sorted[i]!.lineStart}`);
      }
      const dropped = await store.db.all<{ line_start: number; line_end: number }>(
        'SELECT line_start, line_end FROM dropped_exchanges',
      );
      const buf = await readFile(src.path);
      const lines = splitLines(buf, 0, 1, { holdBackPartial: src.adapter.lineFormat === 'jsonl', isComplete: parsesAsJson }).lines;
      const { conversations } = src.adapter.parse({ file: src.path, lines });
      const promptLines = conversations.flatMap((c) => c.messages.filter((m) => m.kind === 'prompt').map((m) => m.line));
      // Exchanges deduplicated against another file are not in this store, so every prompt must be found here.
      for (const line of promptLines) {
        const inKept = rows.filter((r) => r.lineStart <= line && line <= r.lineEnd).length;
        const inDropped = dropped.filter((d) => d.line_start <= line && line <= d.line_end).length;
        assert.equal(inKept + inDropped, 1, `${path.basename(src.path)}: prompt line ${line} in ${inKept} kept + ${inDropped} dropped`);
      }
    } finally {
      await store.close();
    }
  }
});

test('indexing the same bytes twice gives identical rows', async () => {
  const dir = tempDir();
  const a = await Store.open(path.join(dir, 'a.sqlite'));
  const b = await Store.open(path.join(dir, 'b.sqlite'));
  try {
    for (const src of await fixtureSources()) {
      await indexSource(a, src.path, src.adapter, segment);
      await indexSource(b, src.path, src.adapter, segment);
      assert.equal(await indexSource(b, src.path, src.adapter, segment), 'unchanged');
    }
    assert.deepEqual(await snapshot(a), await snapshot(b));
    assert.ok((await a.stats()).exchanges > 0);
  } finally {
    await a.close();
    await b.close();
  }
});

test('appending a file in 3 steps (cut mid-line) gives the same exchanges as indexing it once', async () => {
  // a source of many files is never appended to (opencode.test.ts: a part written in pieces, a new message)
  for (const src of (await fixtureSources()).filter((s) => s.adapter.lineFormat !== 'files')) {
    const dir = tempDir();
    // markdown adapters match on their path; keep the fixture's folder shape
    const rel = path.relative(FIXTURES, src.path);
    const stepped = path.join(dir, 'stepped', rel);
    const once = path.join(dir, 'once', rel);
    await mkdir(path.dirname(stepped), { recursive: true });
    await mkdir(path.dirname(once), { recursive: true });
    await copyFile(src.path, once);
    const bytes = await readFile(src.path);
    const cuts = [Math.floor(bytes.length * 0.37), Math.floor(bytes.length * 0.71)];
    const storeA = await Store.open(path.join(dir, 'a.sqlite'));
    const storeB = await Store.open(path.join(dir, 'b.sqlite'));
    try {
      // a JSON document cut short does not parse: an error that leaves the store as it was, until it is whole
      const partial = async (): Promise<unknown> =>
        src.adapter.lineFormat === 'json'
          ? assert.rejects(indexSource(storeA, stepped, src.adapter, segment), { code: 'source-unreadable' })
          : indexSource(storeA, stepped, src.adapter, segment);
      await writeFile(stepped, bytes.subarray(0, cuts[0]));
      await partial();
      await appendFile(stepped, bytes.subarray(cuts[0], cuts[1]));
      await partial();
      await appendFile(stepped, bytes.subarray(cuts[1]));
      await indexSource(storeA, stepped, src.adapter, segment);
      await indexSource(storeB, once, src.adapter, segment);
      const norm = async (s: Store): Promise<string[]> =>
        (await snapshot(s)).map((j) => {
          const o = JSON.parse(j) as Record<string, unknown>;
          delete o['exchangeId']; // ids of file-identified agents include the path, which differs here
          // so does the project of histories that live in it
          if (typeof o['project'] === 'string') o['project'] = o['project'].replace(/[\\/](stepped|once)(?=[\\/])/, '');
          return JSON.stringify(o);
        });
      assert.deepEqual(await norm(storeA), await norm(storeB), `${rel}: stepped != once`);
      assert.deepEqual((await storeA.stats()).skippedLines, (await storeB.stats()).skippedLines, `${rel}: skip counts`);
      assert.equal((await storeA.stats()).droppedExchanges, (await storeB.stats()).droppedExchanges, `${rel}: dropped`);
    } finally {
      await storeA.close();
      await storeB.close();
    }
  }
});

test('a Claude Code session read after every line it writes gives the exchanges of one read: a task report waits for its answer', async () => {
  // the report on line 8 is context until the model answers it on line 9, then it opens an exchange of its own
  const fixture = path.join(FIXTURES, 'claude-code', 'task-notifications.jsonl');
  const adapter = ADAPTERS.find((a) => a.agent === 'claude-code')!;
  const lines = (await readFile(fixture, 'utf8')).split(/(?<=\n)/u);
  await inStepsAndOnce(adapter, 'session.jsonl', lines, async (storeA, storeB) => {
    const prompts = async (s: Store): Promise<string[]> =>
      Promise.all((await s.listExchanges()).map(async (e) => {
        const x = (await s.getExchange(e.exchangeId))!;
        return `${x.lineStart}-${x.lineEnd} ${x.prompt}`;
      }));
    const whole = await prompts(storeB);
    assert.deepEqual((await prompts(storeA)).sort(), [...whole].sort());
    assert.ok(whole.includes('8-10 Agent "Poem about Thai red curry" completed'), whole.join('\n'));
    assert.deepEqual(await snapshot(storeA), await snapshot(storeB));
  });
});

/**
 * A transcript written in `pieces`, indexed after each one (the first store), and the same file indexed once when whole
 * (the second), each in its own folder under the same relative path `rel` (a reader may match on the path); `check`
 * compares the two stores, which are closed after it.
 */
async function inStepsAndOnce(adapter: SourceAdapter, rel: string, pieces: readonly string[], check: (stepped: Store, once: Store) => Promise<void>): Promise<void> {
  const dir = tempDir();
  const stepped = path.join(dir, 'stepped', rel);
  const once = path.join(dir, 'once', rel);
  await mkdir(path.dirname(stepped), { recursive: true });
  await mkdir(path.dirname(once), { recursive: true });
  await writeFile(once, pieces.join(''));
  await writeFile(stepped, '');
  const storeA = await Store.open(path.join(dir, 'a.sqlite'));
  const storeB = await Store.open(path.join(dir, 'b.sqlite'));
  try {
    for (const piece of pieces) {
      await appendFile(stepped, piece);
      await indexSource(storeA, stepped, adapter, segment);
    }
    await indexSource(storeB, once, adapter, segment);
    await check(storeA, storeB);
  } finally {
    await storeA.close();
    await storeB.close();
  }
}

/** Skipped lines of a store: line and reason, in order. */
async function skips(store: Store): Promise<string[]> {
  return (await store.db.all<{ line: number; reason: string }>('SELECT line, reason FROM skipped_lines ORDER BY line, reason')).map((k) => `${k.line} ${k.reason}`);
}

test('every line-format fixture read after every line written gives the exchanges, skips and drops of one read', async () => {
  for (const src of (await fixtureSources()).filter((s) => s.adapter.lineFormat === 'jsonl')) {
    const rel = path.relative(FIXTURES, src.path);
    const lines = (await readFile(src.path, 'utf8')).split(/(?<=\n)/u);
    await inStepsAndOnce(src.adapter, rel, lines, async (storeA, storeB) => {
      const norm = async (s: Store): Promise<string[]> =>
        (await snapshot(s)).map((j) => {
          const o = JSON.parse(j) as Record<string, unknown>;
          delete o['exchangeId']; // ids of file-identified agents include the path, which differs here
          if (typeof o['project'] === 'string') o['project'] = o['project'].replace(/[\\/](stepped|once)(?=[\\/])/, '');
          return JSON.stringify(o);
        });
      assert.deepEqual(await norm(storeA), await norm(storeB), `${rel}: stepped != once`);
      assert.deepEqual(await skips(storeA), await skips(storeB), `${rel}: skipped lines`);
      assert.equal((await storeA.stats()).droppedExchanges, (await storeB.stats()).droppedExchanges, `${rel}: dropped`);
    });
  }
});

test('a last line read without its newline that grows into another line is read again with the lines before it', async () => {
  // line 3 parses alone (a prompt, which closed the exchange of lines 1-2); a second record appended to it makes it a
  // bad line, and the reply on line 4 belongs to the exchange of lines 1-2, as a read of the whole file has it
  const adapter = ADAPTERS.find((a) => a.agent === 'claude-code')!;
  const base = { sessionId: 's-grow', cwd: '/home/dev/tidepool', timestamp: '2025-11-05T10:00:00Z' };
  const record = (type: string, uuid: string, content: unknown): string => JSON.stringify({ ...base, type, uuid, message: { id: `m-${uuid}`, role: type, content } });
  const said = (text: string): unknown => [{ type: 'text', text }];
  const head = [
    record('user', 'u1', 'Why do the harbour tiles load twice on the map page?'),
    record('assistant', 'a1', said('The map mounts its tile layer in both the page and the panel, so each tile is fetched twice; the panel now reuses the page layer.')),
  ].join('\n') + '\n';
  const third = record('user', 'u2', 'Check the panel as well.');
  const rest = `${record('user', 'u3', 'and the legend')}\n${record('assistant', 'a2', said('The panel and its legend both draw from the one layer now, and each tile is fetched once.'))}\n`;
  await inStepsAndOnce(adapter, 'session.jsonl', [head + third, rest], async (storeA, storeB) => {
    const ranges = async (s: Store): Promise<string[]> => (await s.listExchanges()).map((e) => `${e.lineStart}-${e.lineEnd}`);
    assert.deepEqual(await ranges(storeB), ['1-4']);
    assert.deepEqual(await ranges(storeA), await ranges(storeB));
    assert.deepEqual(await snapshot(storeA), await snapshot(storeB));
    assert.deepEqual(await skips(storeA), await skips(storeB));
  });
});

test('a file whose first message is a compaction summary read in steps reads it as the summary, as one read does', async () => {
  // the boundary on line 1 makes line 2 the summary (context); the first message starts the exchange an appended file
  // is read again from, and the boundary before it must be read again too
  const adapter = ADAPTERS.find((a) => a.agent === 'claude-code')!;
  const base = { sessionId: 's-compact', cwd: '/home/dev/tidepool', timestamp: '2025-11-06T10:00:00Z' };
  const head = [
    JSON.stringify({ ...base, type: 'system', subtype: 'compact_boundary', uuid: 'b1', content: 'Conversation compacted' }),
    JSON.stringify({ ...base, type: 'user', uuid: 'u1', message: { role: 'user', content: 'Summary: the harbour list was paginated, 20 a page, with a load more button.' } }),
  ].join('\n') + '\n';
  const rest = JSON.stringify({ ...base, type: 'assistant', uuid: 'a1', message: { id: 'm1', role: 'assistant', content: [{ type: 'text', text: 'Picking up from the summary: the page size now comes from the settings file, 20 by default.' }] } }) + '\n';
  await inStepsAndOnce(adapter, 'session.jsonl', [head, rest], async (storeA, storeB) => {
    const whole = await snapshot(storeB);
    assert.equal(whole.length, 1);
    assert.match(whole[0]!, /\[context\] Summary: the harbour list/);
    assert.deepEqual(await snapshot(storeA), whole);
  });
});

test('a truncated (rewritten) file is re-parsed whole and its old exchanges replaced', async () => {
  // a fixture with several exchanges, so that half of it has fewer
  const src = (await fixtureSources()).find((s) => s.path.endsWith('compaction.jsonl'));
  assert.ok(src);
  const dir = tempDir();
  const file = path.join(dir, 'session.jsonl');
  await copyFile(src.path, file);
  const store = await Store.open(path.join(dir, 's.sqlite'));
  try {
    await indexSource(store, file, src.adapter, segment);
    const full = (await store.stats()).exchanges;
    const bytes = await readFile(src.path);
    const half = bytes.subarray(0, bytes.lastIndexOf(0x0a, Math.floor(bytes.length / 2)) + 1);
    await writeFile(file, half);
    await indexSource(store, file, src.adapter, segment);
    const after = (await store.stats()).exchanges;
    assert.ok(after < full, `expected fewer exchanges after truncation (${after} < ${full})`);
    assert.deepEqual(await store.check(), { ok: true, problems: [] });
  } finally {
    await store.close();
  }
});

/** A root holding three Claude Code fixtures (one write group), in a fresh temp dir. */
async function threeClaudeSources(): Promise<{ dir: string; root: string }> {
  const dir = tempDir();
  const root = path.join(dir, 'root');
  await mkdir(root, { recursive: true });
  for (const name of ['compaction.jsonl', 'split-reply.jsonl', 'wrappers.jsonl']) {
    await copyFile(path.join(FIXTURES, 'claude-code', name), path.join(root, name));
  }
  return { dir, root };
}

test('an index run that leaves the verbatim index in many segments merges them into one; a few are left as they are', async () => {
  const { dir, root } = await threeClaudeSources();
  const store = await Store.open(path.join(dir, 's.sqlite'));
  try {
    const sources = await discoverSources({ workspaceRoots: [], claudeRoots: [], codexRoots: [], extraRoots: [root], includeSubagents: true });
    // without FTS5's own merging (automerge; crisismerge at 16 segments of a level), each write transaction
    // leaves one more segment
    await store.db.run("INSERT INTO exchanges_fts(exchanges_fts, rank) VALUES('automerge', 0)");
    await store.db.run("INSERT INTO exchanges_fts(exchanges_fts, rank) VALUES('crisismerge', 1000)");
    await indexSources(store, sources, segment);
    const words = async () => store.db.all<{ n: number; score: number }>(`SELECT rowid AS n, bm25(exchanges_fts) AS score FROM exchanges_fts WHERE exchanges_fts MATCH 'the OR file' ORDER BY bm25(exchanges_fts), rowid`);
    const found = await words();
    assert.ok(found.length > 0);
    const row = (await store.db.get<{ n: number }>('SELECT min(n) AS n FROM exchanges'))!.n;
    for (let i = 0; i <= MAX_SEGMENTS; i++) {
      // a transaction rewriting one row of the index, as a re-parse of a growing transcript does
      await store.db.exec('BEGIN');
      // the table keeps no text (schema v30): a row is taken out with the text it indexed
      const fts = (await store.db.get<{ prompt: string }>(`SELECT ${indexedPrompt('e')} AS prompt FROM exchanges e WHERE e.n = ?`, [row]))!;
      await store.db.run("INSERT INTO exchanges_fts(exchanges_fts, rowid, prompt) VALUES ('delete', ?, ?)", [row, fts.prompt]);
      await store.db.run('INSERT INTO exchanges_fts(rowid, prompt) VALUES (?, ?)', [row, fts.prompt]);
      await store.db.exec('COMMIT');
    }
    assert.ok((await ftsSegments(store.db)) > MAX_SEGMENTS);
    assert.deepEqual(await words(), found);
    // a run that writes something (a rebuild: every source read again, the same exchanges written again)
    await store.markAllSourcesStale();
    await indexSources(store, sources, segment);
    assert.equal(await ftsSegments(store.db), 1, 'merged into one segment');
    assert.deepEqual(await words(), found, 'the index answers as before');
    await store.markAllSourcesStale();
    await indexSources(store, sources, segment);
    const few = await ftsSegments(store.db);
    assert.ok(few > 1 && few <= MAX_SEGMENTS, `${few} segments: a few are left for FTS5 to merge as it goes`);
    assert.deepEqual(await store.check(), { ok: true, problems: [] });
  } finally {
    await store.close();
  }
});

test('a source whose write fails is reported alone; the sources written with it in one group are kept', async () => {
  const { dir, root } = await threeClaudeSources();
  const store = await Store.open(path.join(dir, 's.sqlite'));
  try {
    // a real SQLite failure for one source's rows: its exchanges mention the harbour list
    await store.db.exec(`CREATE TRIGGER poison BEFORE INSERT ON exchanges WHEN new.prompt LIKE '%harbour%'
      BEGIN SELECT RAISE(ABORT, 'poisoned row'); END`);
    const sources = await discoverSources({ workspaceRoots: [], claudeRoots: [], codexRoots: [], extraRoots: [root], includeSubagents: true });
    assert.equal(sources.length, 3);
    const report = await indexSources(store, sources, segment);
    assert.deepEqual(report.failed.map((f) => path.basename(f.path)), ['compaction.jsonl']);
    assert.match(report.failed[0]!.error, /poisoned row/);
    assert.equal(report.parsed, 2);
    const files = new Set((await store.listExchanges()).map((e) => path.basename(e.file)));
    assert.deepEqual([...files].sort(), ['split-reply.jsonl', 'wrappers.jsonl']);
    assert.match((await store.getSource(path.join(root, 'compaction.jsonl')))?.lastError ?? '', /poisoned row/);
    assert.deepEqual(await store.check(), { ok: true, problems: [] });
  } finally {
    await store.close();
  }
});

test('a source gone before it is read is reported with its error; the sources read around it are indexed', async () => {
  const { dir, root } = await threeClaudeSources();
  const store = await Store.open(path.join(dir, 's.sqlite'));
  try {
    const sources = await discoverSources({ workspaceRoots: [], claudeRoots: [], codexRoots: [], extraRoots: [root], includeSubagents: true });
    await rm(path.join(root, 'split-reply.jsonl')); // the agent's cleanup ran between discovery and the parse
    const report = await indexSources(store, sources, segment);
    assert.deepEqual(report.failed.map((f) => path.basename(f.path)), ['split-reply.jsonl']);
    assert.match(report.failed[0]!.error, /no such file/);
    assert.equal(report.parsed, 2);
    const files = new Set((await store.listExchanges()).map((e) => path.basename(e.file)));
    assert.deepEqual([...files].sort(), ['compaction.jsonl', 'wrappers.jsonl']);
  } finally {
    await store.close();
  }
});

test('a rebuild re-parses the transcripts that exist and keeps the exchanges of deleted ones', async () => {
  const dir = tempDir();
  const root = path.join(dir, 'root');
  await mkdir(root, { recursive: true });
  for (const name of ['compaction.jsonl', 'split-reply.jsonl']) {
    await copyFile(path.join(FIXTURES, 'claude-code', name), path.join(root, name));
  }
  const discover = { workspaceRoots: [], claudeRoots: [], codexRoots: [], extraRoots: [root], includeSubagents: true };
  const store = await Store.open(path.join(dir, 's.sqlite'));
  try {
    await indexSources(store, await discoverSources(discover), segment);
    const before = await snapshot(store);
    await rm(path.join(root, 'compaction.jsonl')); // the agent's cleanup deleted it
    await store.markAllSourcesStale();
    const report = await indexSources(store, await discoverSources(discover), segment);
    assert.equal(report.parsed, 1, 'the remaining transcript is re-parsed, not skipped as unchanged');
    assert.deepEqual(await snapshot(store), before);
  } finally {
    await store.close();
  }
});

test('histories that record no cwd (SpecStory, Aider) belong to the folder they live in', async () => {
  const store = await Store.open(path.join(tempDir(), 's.sqlite'));
  try {
    for (const src of (await fixtureSources()).filter((s) => s.adapter.lineFormat === 'markdown')) {
      await indexSource(store, src.path, src.adapter, segment);
    }
    const rows = await store.db.all<{ agent: string; project: string | null }>('SELECT DISTINCT agent, project FROM conversations ORDER BY agent');
    assert.deepEqual(rows, [
      { agent: 'aider', project: path.join(FIXTURES, 'aider') },
      { agent: 'specstory', project: path.join(FIXTURES, 'specstory') },
    ]);
  } finally {
    await store.close();
  }
});

/** A Claude Code session of one exchange per call, appended (the lines the agent writes; `cwd` is the session's project). */
async function appendSession(file: string, n: number, prompt: string): Promise<void> {
  const base = { isSidechain: false, userType: 'external', cwd: '/w/shop', sessionId: path.basename(file, '.jsonl'), version: '2.1.12' };
  const id = (k: number): string => `${path.basename(file, '.jsonl').slice(0, 8)}-0000-4000-8000-${String(k).padStart(12, '0')}`;
  const at = new Date(Date.UTC(2026, 0, 1, 0, n)).toISOString();
  const user = { ...base, parentUuid: n > 1 ? id(2 * n - 2) : null, type: 'user', message: { role: 'user', content: prompt }, uuid: id(2 * n - 1), timestamp: at };
  const text = `${prompt} Done: the change is in place and the tests that cover it pass again after the fix.`;
  const reply = { ...base, parentUuid: id(2 * n - 1), type: 'assistant', message: { model: 'claude', id: `msg_${n}`, type: 'message', role: 'assistant', content: [{ type: 'text', text }] }, uuid: id(2 * n), timestamp: at };
  await appendFile(file, `${JSON.stringify(user)}\n${JSON.stringify(reply)}\n`);
}

test("a first index written in several groups leaves the lexicon in one segment, each exchange written in it once more", async () => {
  const dir = tempDir();
  const root = path.join(dir, 'projects', 'shop');
  await mkdir(root, { recursive: true });
  // a write group closes at 64 sources: 65 sessions are two groups, two segments as they are written
  const sessions = 65;
  for (let i = 0; i < sessions; i++) {
    const hex = i.toString(16).padStart(8, '0');
    await appendSession(path.join(root, `${hex}-1111-4111-8111-111111111111.jsonl`), 1, `Why does the checkout page number ${i} render the coupon field twice?`);
  }
  const store = await Store.open(path.join(dir, 'store.sqlite'));
  try {
    let written = 0;
    const get = store.db.get.bind(store.db);
    store.db.get = ((sql: string, params?: unknown[]) => {
      if (sql.startsWith('INSERT INTO lexicon_segments')) written += params![0] as number;
      return get(sql, params as never);
    }) as typeof store.db.get;
    const discover = { workspaceRoots: [], claudeRoots: [], codexRoots: [], extraRoots: [path.join(dir, 'projects')], includeSubagents: true };
    const report = await indexSources(store, await discoverSources(discover), segment);
    assert.equal(report.exchangesWritten, sessions);
    assert.deepEqual(await store.db.all('SELECT docs FROM lexicon_segments'), [{ docs: sessions }]);
    assert.equal(written, 2 * sessions, 'each exchange written in its group\'s segment, then in the merged one');
    assert.deepEqual(await store.check(), { ok: true, problems: [] });
    // a run with nothing to write opens no transaction to merge the lexicon
    let releases = 0;
    const release = HeldMerges.prototype.release;
    HeldMerges.prototype.release = function (...args) {
      releases++;
      return release.apply(this, args);
    };
    try {
      assert.equal((await indexSources(store, await discoverSources(discover), segment)).unchanged, sessions);
    } finally {
      HeldMerges.prototype.release = release;
    }
    assert.equal(releases, 0);
  } finally {
    await store.close();
  }
});

test('a run given its sources reads only those (live indexing): the others wait for a run that discovers', async () => {
  const dir = tempDir();
  const root = path.join(dir, 'projects', 'shop');
  await mkdir(root, { recursive: true });
  const [a, b] = ['aaaaaaaa-1111-4111-8111-111111111111.jsonl', 'bbbbbbbb-2222-4222-8222-222222222222.jsonl'].map((f) => path.join(root, f));
  await appendSession(a!, 1, 'Why does the checkout page render the coupon field twice on mobile?');
  await appendSession(b!, 1, 'Add a retry with backoff to the webhook sender for the payment provider.');
  const store = await Store.open(path.join(dir, 'store.sqlite'));
  const options = { discover: { workspaceRoots: [], claudeRoots: [], codexRoots: [], extraRoots: [path.join(dir, 'projects')], includeSubagents: true }, segment, distiller: false as const };
  try {
    const whole = await indexWorkspace(store, options);
    assert.deepEqual(whole.discovered?.map((s) => path.basename(s.path)), [path.basename(a!), path.basename(b!)]);
    await appendSession(a!, 2, 'Rename the quokkaberry flag to enableCouponDedup everywhere it is read.');
    await appendSession(b!, 2, 'Log the zebrafinch header of every webhook the sender gives up on.');
    const live = await indexWorkspace(store, { ...options, sources: whole.discovered!.filter((s) => s.path === a) });
    assert.equal(live.discovered, undefined, 'no discovery');
    assert.deepEqual([live.sources, live.parsed, live.unchanged], [1, 1, 0]);
    const prompts = async (): Promise<string[]> => (await store.listExchanges()).map((e) => e.prompt.split(' ').slice(0, 2).join(' ')).sort();
    assert.deepEqual(await prompts(), ['Add a', 'Rename the', 'Why does'], "only the given source's new exchange");
    const again = await indexWorkspace(store, options);
    assert.deepEqual([again.parsed, again.unchanged], [1, 1], 'the whole run reads the other one, not the one already read');
    assert.deepEqual(await prompts(), ['Add a', 'Log the', 'Rename the', 'Why does']);
  } finally {
    await store.close();
  }
});
