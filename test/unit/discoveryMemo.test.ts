import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { cp, mkdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { test } from 'node:test';
import { indexWorkspace, type IndexReport } from '../../src/core/indexer';
import { type DiscoveredSource, discover, discoverSources, DiscoveryMemo, type DiscoverOptions } from '../../src/core/sources/discover';
import { Store } from '../../src/core/store/store';
import { FIXTURES, rowsPerStatement, tempDir } from './helpers';

const segment = { minChars: 100, maxPlies: 20 };
const options = (extraRoots: string[], workspaceRoots: string[] = []): DiscoverOptions => ({ workspaceRoots, claudeRoots: [], codexRoots: [], extraRoots, includeSubagents: true });
const listed = (sources: ReadonlyArray<{ path: string; adapter: { agent: string }; project?: string }>): string[][] =>
  sources.map((s) => [s.path, s.adapter.agent, s.project ?? '']);

/** A Claude Code session placed in `cwd` (the same length for every cwd given here, so the file keeps its size). */
function claudeSession(cwd: string): string {
  const record = (type: string, uuid: string, parentUuid: string | null, message: unknown): string =>
    JSON.stringify({ parentUuid, isSidechain: false, userType: 'external', cwd, sessionId: '7d1e0000-0000-4000-8000-000000000000', version: '2.1.12', type, message, uuid, timestamp: '2026-01-01T00:00:00.000Z' });
  return `${record('user', '7d1e0000-0000-4000-8000-000000000001', null, { role: 'user', content: 'Why does the harbour cache lose entries after a restart?' })}\n${record('assistant', '7d1e0000-0000-4000-8000-000000000002', '7d1e0000-0000-4000-8000-000000000001', {
    model: 'claude', id: 'msg_1', type: 'message', role: 'assistant', content: [{ type: 'text', text: 'It is kept in memory only; write it to disk on shutdown and read it back on start.' }],
  })}\n`;
}

/** An index run as a new process makes it: the store opened again, a new memo (only what the store kept of earlier ones). */
async function newProcessRun(db: string, discovery: DiscoverOptions, sources?: readonly DiscoveredSource[]): Promise<IndexReport> {
  const store = await Store.open(db);
  try {
    return await indexWorkspace(store, { discover: discovery, segment, distiller: false, ...(sources ? { sources } : {}) }, undefined, undefined, new DiscoveryMemo());
  } finally {
    await store.close();
  }
}

/** The files whose discovery a store keeps. */
async function keptPaths(db: string): Promise<unknown[]> {
  const store = await Store.open(db);
  try {
    return await store.db.all('SELECT path FROM discovery_memo');
  } finally {
    await store.close();
  }
}

/** A folder of one Claude Code session, untouched since long before it is listed; the path of a second one to come. */
async function folderOfOneSession(root: string): Promise<{ folder: string; first: string; second: string; old: Date }> {
  const folder = path.join(root, 'projects', 'p');
  await mkdir(folder, { recursive: true });
  const first = path.join(folder, '7d1e0000-0000-4000-8000-000000000000.jsonl');
  const second = path.join(folder, '7d1e0000-0000-4000-8000-000000000001.jsonl');
  await writeFile(first, claudeSession('/home/dev/alpha'));
  const old = new Date(Date.UTC(2026, 0, 1));
  await utimes(folder, old, old);
  return { folder, first, second, old };
}

test('a discovery with a memo finds what a fresh one finds, every fixture agent, twice over', async () => {
  const root = path.join(tempDir(), 'fixtures');
  await cp(FIXTURES, root, { recursive: true });
  const memo = new DiscoveryMemo();
  const fresh = listed(await discoverSources(options([root])));
  assert.ok(fresh.length > 40, `${fresh.length} fixture sources`);
  assert.deepEqual(listed((await discover(options([root]), memo)).sources), fresh);
  assert.deepEqual(listed((await discover(options([root]), memo)).sources), fresh, 'from the memo');
  // a scope: the memo's entries were made for another discovery, so nothing of them is taken
  const scoped = options([root], ['/home/dev/shop']);
  assert.deepEqual(listed((await discover(scoped, memo)).sources), listed(await discoverSources(scoped)));
});

test("a file of the same size and time is not read again: its head's project stays the memo's until the file changes", async () => {
  const root = tempDir();
  const file = path.join(root, 'projects', 'p', '7d1e0000-0000-4000-8000-000000000000.jsonl');
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, claudeSession('/home/dev/alpha'));
  // a whole second, which utimes puts back exactly
  const time = new Date(Date.UTC(2026, 0, 1));
  await utimes(file, time, time);
  const memo = new DiscoveryMemo();
  assert.deepEqual(listed((await discover(options([root]), memo)).sources), [[file, 'claude-code', '/home/dev/alpha']]);
  // rewritten in place to the same size, its time put back: the index itself takes such a file as unchanged
  await writeFile(file, claudeSession('/home/dev/omega'));
  await utimes(file, time, time);
  assert.deepEqual(listed((await discover(options([root]), memo)).sources), [[file, 'claude-code', '/home/dev/alpha']], 'the head was not read');
  assert.deepEqual(listed(await discoverSources(options([root]))), [[file, 'claude-code', '/home/dev/omega']], 'a fresh discovery reads it');
  // a new time: read again
  await utimes(file, time, new Date(time.getTime() + 2000));
  assert.deepEqual(listed((await discover(options([root]), memo)).sources), [[file, 'claude-code', '/home/dev/omega']]);
  // gone: not found, and forgotten
  await rm(file);
  assert.deepEqual((await discover(options([root]), memo)).sources, []);
});

test("a Gemini chat is placed again when the .project_root beside it appears, changes or goes (its own file unchanged)", async () => {
  const home = path.join(tempDir(), '.gemini');
  const chats = path.join(home, 'tmp', 'tidepool', 'chats');
  await mkdir(chats, { recursive: true });
  const file = path.join(chats, 'session-2025-11-02T10-00-5e1f0a2b.json');
  await writeFile(file, await readFile(path.join(FIXTURES, 'gemini', 'session-2025-11-02T10-00-5e1f0a2b.json')));
  const marker = path.join(home, 'tmp', 'tidepool', '.project_root');
  const memo = new DiscoveryMemo();
  const found = async (): Promise<string[][]> => {
    const mine = listed((await discover(options([home]), memo)).sources);
    assert.deepEqual(mine, listed(await discoverSources(options([home]))), 'as a fresh discovery');
    return mine;
  };
  assert.deepEqual(await found(), [[file, 'gemini', '']]);
  assert.deepEqual(await found(), [[file, 'gemini', '']]);
  await writeFile(marker, '/home/dev/tidepool\n');
  assert.deepEqual(await found(), [[file, 'gemini', '/home/dev/tidepool']]);
  await writeFile(marker, '/home/dev/tidepool/app\n');
  assert.deepEqual(await found(), [[file, 'gemini', '/home/dev/tidepool/app']]);
  await rm(marker);
  assert.deepEqual(await found(), [[file, 'gemini', '']]);
});

test('a discovery gives the size and time it saw of each source; the next whole run of a memory reads only the file that grew', async () => {
  const root = path.join(tempDir(), 'fixtures');
  await cp(FIXTURES, root, { recursive: true });
  const found = await discover(options([root]));
  for (const s of found.sources) {
    const st = await stat(s.path);
    assert.deepEqual(found.seen.get(s.path), { size: st.size, mtimeMs: st.mtimeMs }, s.path);
  }
  const store = await Store.open(path.join(tempDir(), 's.sqlite'));
  try {
    const memo = new DiscoveryMemo();
    const run = (): ReturnType<typeof indexWorkspace> => indexWorkspace(store, { discover: options([root]), segment, distiller: false }, undefined, undefined, memo);
    const first = await run();
    assert.equal(first.parsed + first.failed.length, found.sources.length);
    const again = await run();
    assert.deepEqual([again.parsed, again.unchanged, again.failed.length], [0, first.parsed, first.failed.length]);
    const grown = found.sources.find((s) => s.adapter.agent === 'claude-code' && s.path.endsWith('.jsonl'))!;
    const before = (await store.stats()).exchanges;
    await writeFile(grown.path, (await readFile(grown.path, 'utf8')) + claudeSession('/home/dev/alpha').replace(/7d1e0000-0000-4000-8000-00000000000/g, '7d1e0000-0000-4000-8000-00000000010'));
    const third = await run();
    assert.deepEqual([third.parsed, third.unchanged], [1, first.parsed - 1]);
    assert.equal((await store.stats()).exchanges, before + 1);
  } finally {
    await store.close();
  }
});

test("a whole run that wrote nothing leaves the store's ledger as it is; one that wrote rewrites it after its later stages", async () => {
  const root = tempDir();
  const file = path.join(root, 'projects', 'p', '7d1e0000-0000-4000-8000-000000000000.jsonl');
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, claudeSession('/home/dev/alpha'));
  const db = path.join(tempDir(), 's.sqlite');
  const ledger = `${db}.ledger.json`;
  const store = await Store.open(db);
  try {
    const stages: string[] = [];
    const run = (): ReturnType<typeof indexWorkspace> =>
      indexWorkspace(store, { discover: options([root]), segment }, (p) => {
        // the ledger is written after the last stage: at the first progress of each stage it is not there yet
        if (stages[stages.length - 1] !== p.phase) stages.push(`${p.phase}:${existsSync(ledger)}`);
      });
    await run();
    assert.ok(existsSync(ledger));
    assert.deepEqual(stages.filter((s) => s.endsWith('true')), [], 'written at the end of the run');
    await rm(ledger);
    const again = await run();
    assert.equal(again.parsed, 0);
    assert.equal(existsSync(ledger), false, 'nothing written: not rewritten');
    await writeFile(file, (await readFile(file, 'utf8')) + claudeSession('/home/dev/alpha').replace(/7d1e0000-0000-4000-8000-00000000000/g, '7d1e0000-0000-4000-8000-00000000010'));
    assert.equal((await run()).parsed, 1);
    assert.equal(JSON.parse(await readFile(ledger, 'utf8')).sources[0].exchanges, 2);
  } finally {
    await store.close();
  }
});

test("a Gemini subagent's chat, a folder deeper, is placed again when its project's .project_root appears", async () => {
  const home = path.join(tempDir(), '.gemini');
  const parent = '5b6c7d8e-1f2a-4b3c-8d4e-5f6a7b8c9d0e';
  const file = path.join(home, 'tmp', 'tidepool', 'chats', parent, 'q8w2e4.jsonl');
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, await readFile(path.join(FIXTURES, 'gemini', 'tidepool', 'chats', parent, 'q8w2e4.jsonl')));
  const memo = new DiscoveryMemo();
  const found = async (): Promise<string[][]> => listed((await discover(options([home]), memo)).sources);
  assert.deepEqual(await found(), [[file, 'gemini', '']]);
  await writeFile(path.join(home, 'tmp', 'tidepool', '.project_root'), '/home/dev/tidepool\n');
  assert.deepEqual(await found(), [[file, 'gemini', '/home/dev/tidepool']], 'as a fresh discovery');
});

test("a folder whose time has not changed since a discovery listed it is not listed again; one changed since, or listed just after a change, is", async () => {
  const root = tempDir();
  // the folder last changed long before it is listed: its listing is kept
  const { folder, first, second, old } = await folderOfOneSession(root);
  const memo = new DiscoveryMemo();
  const found = async (): Promise<string[]> => (await discover(options([root]), memo)).sources.map((s) => s.path);
  assert.deepEqual(await found(), [first]);
  // a session added, the folder's time put back (as a change within one tick of the file system's clock leaves it):
  // the folder is not listed again, so the new file is not seen; a fresh discovery lists it
  await writeFile(second, claudeSession('/home/dev/alpha'));
  await utimes(folder, old, old);
  assert.deepEqual(await found(), [first], 'the folder was not listed again');
  assert.deepEqual((await discoverSources(options([root]))).map((s) => s.path), [first, second]);
  // the folder's time moves on (what adding a file does): listed again
  const later = new Date(old.getTime() + 2000);
  await utimes(folder, later, later);
  assert.deepEqual(await found(), [first, second]);
  // a folder listed within FOLDER_SETTLED_MS of its last change is listed again next time, whatever its times say
  await rm(second);
  const recent = new Date(Date.now() - 500);
  await utimes(folder, recent, recent);
  assert.deepEqual(await found(), [first]);
  await writeFile(second, claudeSession('/home/dev/alpha'));
  await utimes(folder, recent, recent);
  assert.deepEqual(await found(), [first, second], 'a listing made just after a change is not kept');
});

test("a process's first whole run takes what an earlier process's discoveries kept in the store: an unchanged file's head is not read again", async () => {
  const root = tempDir();
  const file = path.join(root, 'projects', 'p', '7d1e0000-0000-4000-8000-000000000000.jsonl');
  await mkdir(path.dirname(file), { recursive: true });
  const time = new Date(Date.UTC(2026, 0, 1));
  const write = async (cwd: string, at = time): Promise<void> => {
    await writeFile(file, claudeSession(cwd));
    await utimes(file, at, at);
  };
  const db = path.join(tempDir(), 's.sqlite');
  const placed = async (discovery: DiscoverOptions): Promise<string[][]> => listed((await newProcessRun(db, discovery)).discovered!);
  await write('/home/dev/alpha');
  assert.deepEqual(await placed(options([root])), [[file, 'claude-code', '/home/dev/alpha']]);
  // rewritten in place to the same size, its time put back: the index itself takes such a file as unchanged
  await write('/home/dev/omega');
  assert.deepEqual(await placed(options([root])), [[file, 'claude-code', '/home/dev/alpha']], "the store's entry: the head was not read");
  // another discovery (other options) does not take them, and its own replace them
  const other = { ...options([root]), includeSubagents: false };
  assert.deepEqual(await placed(other), [[file, 'claude-code', '/home/dev/omega']]);
  await write('/home/dev/alpha');
  assert.deepEqual(await placed(options([root])), [[file, 'claude-code', '/home/dev/alpha']], 'read: the store kept the other options');
  // a new time: read again
  await write('/home/dev/omega', new Date(time.getTime() + 2000));
  assert.deepEqual(await placed(options([root])), [[file, 'claude-code', '/home/dev/omega']]);
  // gone: forgotten in the store too
  await rm(file);
  assert.deepEqual(await placed(options([root])), []);
  assert.deepEqual(await keptPaths(db), []);
});

test("a discovery from the memo a store kept finds what a fresh one finds, every fixture agent", async () => {
  const root = path.join(tempDir(), 'fixtures');
  await cp(FIXTURES, root, { recursive: true });
  const fresh = listed(await discoverSources(options([root])));
  const db = path.join(tempDir(), 's.sqlite');
  for (let run = 0; run < 2; run++) {
    const report = await newProcessRun(db, options([root]));
    assert.deepEqual(listed(report.discovered!), fresh, `run ${run}`);
    if (run === 1) assert.ok((await keptPaths(db)).length > 40);
  }
});

test("a process's first walk takes the folders' listings an earlier process kept in the store: an unchanged folder is not listed again", async () => {
  const root = tempDir();
  const { folder, first, second, old } = await folderOfOneSession(root);
  const db = path.join(tempDir(), 's.sqlite');
  const found = async (): Promise<string[]> => (await newProcessRun(db, options([root]))).discovered!.map((s) => s.path);
  assert.deepEqual(await found(), [first]);
  // a session added, the folder's time put back: a new process does not list the folder again
  await writeFile(second, claudeSession('/home/dev/alpha'));
  await utimes(folder, old, old);
  assert.deepEqual(await found(), [first], "the store's listing");
  // the folder's time moves on: listed again
  const later = new Date(old.getTime() + 2000);
  await utimes(folder, later, later);
  assert.deepEqual(await found(), [first, second]);
});

test("a walk's paths are what path.join makes of the root as it was named (a trailing separator, a `.` in it)", async () => {
  const root = path.join(tempDir(), 'fixtures');
  await cp(FIXTURES, root, { recursive: true });
  const joined = async (): Promise<string[]> => {
    const out: string[] = [];
    const walkJoin = async (dir: string): Promise<void> => {
      const { readdir } = await import('node:fs/promises');
      for (const e of await readdir(dir, { withFileTypes: true })) {
        const full = path.join(dir, e.name);
        if (e.isDirectory()) await walkJoin(full);
        else out.push(full);
      }
    };
    await walkJoin(root);
    return out;
  };
  const expected = new Set(await joined());
  for (const named of [root, `${root}${path.sep}`, `${root}${path.sep}.${path.sep}`, path.join(root, 'claude-code', '..')]) {
    const found = (await discoverSources(options([named]))).map((s) => s.path);
    assert.ok(found.length > 40, named);
    for (const f of found) assert.ok(expected.has(f), `${named}: ${f}`);
  }
});

test("a run given its sources (a live run) leaves the memo the store kept as it was, even as a process's first", async () => {
  const root = path.join(tempDir(), 'fixtures');
  await cp(path.join(FIXTURES, 'claude-code'), root, { recursive: true });
  const db = path.join(tempDir(), 's.sqlite');
  const whole = await newProcessRun(db, options([root]));
  const before = (await keptPaths(db)).length;
  assert.ok(before > 0);
  await newProcessRun(db, options([root]), whole.discovered!.slice(0, 1));
  assert.equal((await keptPaths(db)).length, before);
});

test("a kept memo larger than a page is read back whole, in its keys' order, and no statement of the read gives more than a page of rows", async () => {
  const db = path.join(tempDir(), 'pages.sqlite');
  const store = await Store.open(db);
  try {
    const files = Array.from({ length: 2_500 }, (_, i) => ({
      path: `/h/r${i % 7}/projects/p${i}/s${i}.jsonl`,
      size: 1_000 + i,
      mtimeMs: 1_767_225_600_000.25 + i,
      ...(i % 3 === 0 ? {} : { adapter: i % 5 }),
      ...(i % 4 === 0 ? { project: `/home/dev/p${i}` } : {}),
      ...(i % 6 === 0 ? { within: [`/h/r${i % 7}`] } : {}),
      beside: i % 8 === 0 ? [{ file: `/h/r${i % 7}/projects/p${i}/.project_root`, size: 12, mtimeMs: 1_767_225_600_000.5 }] : [],
    }));
    const folders = Array.from({ length: 1_200 }, (_, i) => ({ dir: `/h/r${i % 7}/projects/p${i}`, ino: 10_000 + i, mtimeMs: 1_767_225_600_000 + i, entries: [`fs${i}.jsonl`, 'd.sub'] }));
    await store.keepDiscoveryMemo({ key: 'k', replace: true, entries: files, gone: [], folders, foldersGone: [] });
    const counts = rowsPerStatement(store);
    const kept = await store.discoveryMemo('k');
    const byKey = <T>(key: (x: T) => string) => (a: T, b: T) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);
    assert.deepEqual(kept.files, [...files].sort(byKey((f) => f.path)));
    assert.deepEqual(kept.folders, [...folders].sort(byKey((f) => f.dir)));
    assert.ok(Math.max(...counts) <= 1_000, `rows a statement: ${counts.join(', ')}`);
  } finally {
    await store.close();
  }
});
