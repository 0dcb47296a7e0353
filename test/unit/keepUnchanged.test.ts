import assert from 'node:assert/strict';
import { cpSync, readdirSync, statSync, utimesSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { test } from 'node:test';
import { Memory } from '../../src/core/memory';
import { DEFAULT_SEGMENT_OPTIONS } from '../../src/core/segment';
import { Db } from '../../src/core/store/db';
import { hashStoredExchanges } from '../../src/core/store/exchangeHashes';
import { FIXTURES, tempDir } from './helpers';

/**
 * A source read again whole keeps the exchanges it still holds as they were (issue 41, schema 31): same row, same
 * distilled object, token count and vectors; only new, changed and vanished exchanges are written or deleted, and the
 * store is what a fresh index of the same files writes.
 */

const options = (root: string) => ({
  discover: { workspaceRoots: [], claudeRoots: [], codexRoots: [], extraRoots: [root], includeSubagents: true },
  segment: DEFAULT_SEGMENT_OPTIONS,
});

let lastParsed = 0;

interface Row {
  n: number;
  id: string;
  agent: string;
  path: string;
  tokens: number | null;
  distilled: number | null;
}

/** Every exchange's row, with what was made of it: its token count and its distilled object's row. */
async function rows(file: string): Promise<Row[]> {
  const db = await Db.open(file, { readonly: true });
  try {
    return await db.all<Row>(
      `SELECT e.n, e.id, c.agent, s.path, e.verbatim_tokens AS tokens, d.rowid AS distilled
       FROM exchanges e JOIN conversations c ON c.id = e.conversation_id JOIN sources s ON s.id = e.source_id
       LEFT JOIN distilled d ON d.exchange_n = e.n ORDER BY e.id`,
    );
  } finally {
    await db.close();
  }
}

/** What a reader sees of every exchange and its distilled object, by id (row numbers left out: the order of writing). */
async function seen(memory: Memory): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const s of await memory.list()) {
    const ex = await memory.exchange(s.exchangeId);
    out[s.exchangeId] = { ...ex, distilled: (await memory.distilled(s.exchangeId)) ?? null };
  }
  return out;
}

async function indexed(file: string, root: string): Promise<{ written: number; kept: number; distilled: number; parsed?: number }> {
  const memory = await Memory.open(file);
  try {
    const r = await memory.index(options(root));
    lastParsed = r.parsed;
    return { written: r.exchangesWritten, kept: r.exchangesKept, distilled: r.distill?.distilled ?? 0 };
  } finally {
    await memory.close();
  }
}

async function freshlyIndexed(root: string): Promise<Record<string, unknown>> {
  const file = path.join(tempDir(), 'fresh.sqlite');
  await indexed(file, root);
  const memory = await Memory.openReadOnly(file);
  try {
    return await seen(memory);
  } finally {
    await memory.close();
  }
}

async function seenIn(file: string): Promise<Record<string, unknown>> {
  const memory = await Memory.openReadOnly(file);
  try {
    return await seen(memory);
  } finally {
    await memory.close();
  }
}

function touchAll(dir: string, when: Date): void {
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) touchAll(full, when);
    else utimesSync(full, when, when);
  }
}

test('every transcript touched (its time changed, its bytes the same): every exchange keeps its row, distilled object and token count', async () => {
  const root = path.join(tempDir(), 'fixtures');
  cpSync(FIXTURES, root, { recursive: true });
  const store = path.join(tempDir(), 's.sqlite');
  const first = await indexed(store, root);
  assert.ok(first.written > 20);
  const before = await rows(store);
  // as a store from before whole documents' hashes (schema 31) has them: every document is parsed again
  const db = await Db.open(store);
  await db.run('UPDATE sources SET file_hash = NULL');
  await db.close();
  touchAll(root, new Date(Date.now() + 60_000));
  const again = await indexed(store, root);
  const parsedWhole = lastParsed;
  assert.deepEqual({ written: again.written, distilled: again.distilled }, { written: 0, distilled: 0 }, 'nothing written or distilled again');
  assert.ok(again.kept > before.length / 2, `the exchanges read again were kept (${again.kept} of ${before.length})`);
  assert.deepEqual(await rows(store), before);
  // the whole-document formats among them, each read again whole
  const agents = new Set(before.map((r) => r.agent));
  for (const agent of ['gemini', 'specstory', 'aider', 'copilot', 'cline', 'continue', 'amp']) assert.ok(agents.has(agent), agent);
  assert.deepEqual(await seenIn(store), await freshlyIndexed(root), 'the store a fresh index writes');
  // touched again, their hashes stored now: the documents are not parsed, the logs are from their last exchange
  touchAll(root, new Date(Date.now() + 120_000));
  const third = await indexed(store, root);
  assert.equal(third.written, 0);
  assert.ok(lastParsed < parsedWhole - 10, `${lastParsed} of ${parsedWhole} parsed`);
  assert.ok(third.kept < again.kept, `${third.kept} kept, against ${again.kept}`);
  assert.deepEqual(await rows(store), before);
});

test('a rebuild (every source marked stale) writes every exchange again, with what is made of it: the way out when something derived looks wrong', async () => {
  const root = path.join(tempDir(), 'fixtures');
  cpSync(path.join(FIXTURES, 'gemini'), path.join(root, 'gemini'), { recursive: true });
  cpSync(path.join(FIXTURES, 'specstory'), path.join(root, 'specstory'), { recursive: true });
  const store = path.join(tempDir(), 's.sqlite');
  const first = await indexed(store, root);
  assert.ok(first.written >= 3);
  const before = await rows(store);
  const memory = await Memory.open(store);
  try {
    await memory.markAllSourcesStale();
  } finally {
    await memory.close();
  }
  const again = await indexed(store, root);
  assert.deepEqual({ written: again.written, kept: again.kept, distilled: again.distilled }, { written: before.length, kept: 0, distilled: before.length });
  assert.deepEqual((await rows(store)).map((r) => r.id), before.map((r) => r.id));
  assert.deepEqual(await seenIn(store), await freshlyIndexed(root), 'the store a fresh index writes');
});

const GEMINI = path.join(FIXTURES, 'gemini', 'session-2025-11-02T10-00-5e1f0a2b.json');
const SPECSTORY = path.join(FIXTURES, 'specstory', '.specstory', 'history', '2025-10-06_06-24Z-tide-alert-threshold.md');

/** A folder holding the fixture `source` alone, at its place under the fixtures. */
async function rootWith(source: string): Promise<{ root: string; file: string }> {
  const root = path.join(tempDir(), 'root');
  const file = path.join(root, path.relative(FIXTURES, source));
  cpSync(source, file, { recursive: true });
  return { root, file };
}

interface GeminiDoc {
  messages: Array<{ id: string; type: string; content: string }>;
}

async function rewrite(file: string, change: (doc: GeminiDoc) => void): Promise<void> {
  const doc = JSON.parse(await readFile(file, 'utf8')) as GeminiDoc;
  change(doc);
  await writeFile(file, JSON.stringify(doc, null, 1));
}

test('a Gemini CLI document rewritten with one exchange changed writes that one alone; the other keeps its row and distilled object', async () => {
  const { root, file } = await rootWith(GEMINI);
  const store = path.join(tempDir(), 's.sqlite');
  assert.equal((await indexed(store, root)).written, 2);
  const [a, b] = await rows(store).then((r) => r.sort((x, y) => x.n - y.n));
  // the second exchange's last reply says more (a live session's turn going on); the file's lines move too
  await rewrite(file, (doc) => {
    const last = doc.messages.filter((m) => m.type === 'gemini').at(-1)!;
    last.content += ' The lowercase code is upper-cased before the lookup now.';
  });
  const again = await indexed(store, root);
  assert.deepEqual(again, { written: 1, kept: 1, distilled: 1 });
  const after = await rows(store);
  assert.deepEqual(after.find((r) => r.id === a!.id), a, 'the unchanged exchange keeps its row, token count and distilled object');
  const memory = await Memory.openReadOnly(store);
  try {
    assert.match((await memory.exchange(b!.id))!.verbatim, /upper-cased before the lookup now/, 'the changed one is written again');
  } finally {
    await memory.close();
  }
  assert.deepEqual(await seenIn(store), await freshlyIndexed(root), 'the store a fresh index writes, places included');
});

test('an exchange gone from a rewritten document (the last turn undone) goes from the store; the one left keeps its row', async () => {
  const { root, file } = await rootWith(GEMINI);
  const store = path.join(tempDir(), 's.sqlite');
  await indexed(store, root);
  const [a, b] = await rows(store).then((r) => r.sort((x, y) => x.n - y.n));
  // the second exchange's prompt and replies removed (the last turn undone)
  await rewrite(file, (doc) => {
    const users = doc.messages.flatMap((m, i) => (m.type === 'user' ? [i] : []));
    doc.messages.splice(users[1]!);
  });
  const again = await indexed(store, root);
  assert.deepEqual(again, { written: 0, kept: 1, distilled: 0 });
  const after = await rows(store);
  assert.deepEqual(after.map((r) => r.id), [a!.id]);
  assert.deepEqual(after[0], a, 'kept as it was');
  assert.notEqual(a!.id, b!.id);
  assert.deepEqual(await seenIn(store), await freshlyIndexed(root), 'the store a fresh index writes');

});

test('a SpecStory export rewritten with a turn appended writes the new exchange alone', async () => {
  const { root, file } = await rootWith(SPECSTORY);
  const store = path.join(tempDir(), 's.sqlite');
  const first = await indexed(store, root);
  assert.ok(first.written >= 2, `${first.written}`);
  const before = await rows(store);
  const text = await readFile(file, 'utf8');
  await writeFile(
    file,
    `${text.trimEnd()}\n\n---\n\n_**User (2025-10-06 07:02Z)**_\n\nNow add a test for the threshold at exactly the alert level, please, with the harbour code in lowercase.\n\n---\n\n` +
      `_**Agent (model gpt-5-codex, mode Agent)**_\n\nI added a test in tests/alerts.test.ts that sets the level to the threshold and expects one alert, with the code lowercase.\n\n---\n`,
  );
  const again = await indexed(store, root);
  assert.deepEqual(again, { written: 1, kept: first.written, distilled: 1 });
  const after = await rows(store);
  for (const r of before) assert.deepEqual(after.find((x) => x.id === r.id), r);
  assert.deepEqual(await seenIn(store), await freshlyIndexed(root));
});

test("schema 31's migration gives each stored exchange the hash its parse gives", async () => {
  const root = path.join(tempDir(), 'fixtures');
  cpSync(FIXTURES, root, { recursive: true });
  const store = path.join(tempDir(), 's.sqlite');
  await indexed(store, root);
  const db = await Db.open(store);
  try {
    const parsed = await db.all<{ n: number; content_hash: string }>('SELECT n, content_hash FROM exchanges ORDER BY n');
    assert.ok(parsed.length > 20 && parsed.every((r) => /^[A-Za-z0-9+/]{16}$/.test(r.content_hash)));
    await db.run('UPDATE exchanges SET content_hash = NULL');
    const progress: number[] = [];
    await hashStoredExchanges(db, (done) => progress.push(done));
    assert.deepEqual(await db.all('SELECT n, content_hash FROM exchanges ORDER BY n'), parsed);
    assert.equal(progress.at(-1), parsed.length);
  } finally {
    await db.close();
  }
});

test('a whole document read again at the same size and bytes is not parsed; its new time is stored; one byte changed is parsed', async () => {
  const { root, file } = await rootWith(GEMINI);
  const store = path.join(tempDir(), 's.sqlite');
  await indexed(store, root);
  const before = await rows(store);
  utimesSync(file, new Date(Date.now() + 60_000), new Date(Date.now() + 60_000));
  assert.deepEqual(await indexed(store, root), { written: 0, kept: 0, distilled: 0 });
  assert.equal(lastParsed, 0, 'the same bytes: not parsed');
  const db = await Db.open(store, { readonly: true });
  try {
    const stored = await db.get<{ mtime_ms: number; size: number }>('SELECT mtime_ms, size FROM sources');
    assert.deepEqual(stored, { mtime_ms: Math.floor(statSync(file).mtimeMs), size: statSync(file).size }, 'its new time stored: the next run does not read it');
  } finally {
    await db.close();
  }
  assert.deepEqual(await rows(store), before);
  // the same size, one letter changed in the second exchange's reply: parsed, that exchange written again
  const text = await readFile(file, 'utf8');
  const at = text.lastIndexOf('"type": "gemini"');
  const first = text.indexOf('"content": "', at) + '"content": "'.length;
  const letter = text[first]!;
  assert.match(letter, /[A-Z]/);
  await writeFile(file, `${text.slice(0, first)}${letter.toLowerCase()}${text.slice(first + 1)}`);
  assert.equal(statSync(file).size, Buffer.byteLength(text));
  const again = await indexed(store, root);
  assert.equal(lastParsed, 1);
  assert.deepEqual(again, { written: 1, kept: 1, distilled: 1 });
  assert.deepEqual(await seenIn(store), await freshlyIndexed(root));
});
