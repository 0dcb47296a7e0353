import assert from 'node:assert/strict';
import { mkdirSync, statSync, utimesSync } from 'node:fs';
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { test } from 'node:test';
import { Memory } from '../../src/core/memory';
import { DEFAULT_SEGMENT_OPTIONS } from '../../src/core/segment';
import { Db } from '../../src/core/store/db';
import { tempDir } from './helpers';

/**
 * A log (Claude Code's, Codex's JSONL) whose time changed while its size did not (a `touch`, a sync tool, a restore, a
 * checkout) is not parsed when its lines from its resume point are those it had (issue 41: "nothing re-read that did
 * not change"); one rewritten in place at the same size is parsed from there, and one that grew is read from its
 * resume point as before. In each case the store is what a fresh index of the same files writes.
 */

const options = (root: string) => ({
  discover: { workspaceRoots: [], claudeRoots: [], codexRoots: [], extraRoots: [root], includeSubagents: true },
  segment: DEFAULT_SEGMENT_OPTIONS,
});

interface Run {
  parsed: number;
  bytesParsed: number;
  written: number;
  kept: number;
}

async function indexed(file: string, root: string): Promise<Run> {
  const memory = await Memory.open(file);
  try {
    const r = await memory.index(options(root));
    return { parsed: r.parsed, bytesParsed: r.bytesParsed, written: r.exchangesWritten, kept: r.exchangesKept };
  } finally {
    await memory.close();
  }
}

/** What a reader sees of every exchange and its distilled object, by id. */
async function seenIn(file: string): Promise<Record<string, unknown>> {
  const memory = await Memory.openReadOnly(file);
  try {
    const out: Record<string, unknown> = {};
    for (const s of await memory.list()) out[s.exchangeId] = { ...(await memory.exchange(s.exchangeId)), distilled: (await memory.distilled(s.exchangeId)) ?? null };
    return out;
  } finally {
    await memory.close();
  }
}

async function freshlyIndexed(root: string): Promise<Record<string, unknown>> {
  const file = path.join(tempDir(), 'fresh.sqlite');
  await indexed(file, root);
  return seenIn(file);
}

/** Every exchange's row with its token count and distilled object's row, and every source's stored state. */
async function rows(file: string): Promise<{ exchanges: unknown[]; sources: unknown[] }> {
  const db = await Db.open(file, { readonly: true });
  try {
    return {
      exchanges: await db.all(
        `SELECT e.n, e.id, e.verbatim_tokens AS tokens, d.rowid AS distilled FROM exchanges e LEFT JOIN distilled d ON d.exchange_n = e.n ORDER BY e.id`,
      ),
      sources: await db.all('SELECT path, size, mtime_ms, parsed_offset, resume_offset, file_hash FROM sources ORDER BY path'),
    };
  } finally {
    await db.close();
  }
}

const SESSION = '4c1d2e3f-5a6b-4c7d-8e9f-0a1b2c3d4e5f';
const PROMPTS = [
  'The harbour tide alerts fire twice for the same reading; find where the reading is queued and make each one alert once.',
  'Now make the threshold configurable per harbour, read from the harbour table, with the old value as the default one.',
  'Add a test that sets the level to exactly the threshold for a lowercase harbour code and expects a single alert.',
  'Write a short note in the changelog about the per-harbour thresholds and the duplicate alerts that no longer fire.',
];
const REPLIES = [
  'The reading was queued by both the poller and the webhook; the poller now skips a reading the webhook already queued, so each reading alerts once.',
  'Each harbour row has a threshold column now, read when the alert is checked; a harbour without one keeps the old value of 2.4 metres.',
  'The test in tests/alerts.test.ts sets the level to the threshold for the code "brx" and expects exactly one alert; it passes. ' +
    'What it covers, reading by reading: a level just under the threshold gives no alert; the level at the threshold gives one; a second ' +
    'reading at the same level within the quiet period gives none; a reading after the quiet period gives one again; the lowercase code ' +
    'is upper-cased before the harbour table is asked, so "brx" and "BRX" find the same row; a harbour missing from the table falls back ' +
    'to the default threshold of 2.4 metres; the webhook and the poller queueing the same reading still give one alert. The suite runs ' +
    'in 0.4 s; the fake clock is advanced by the test itself, so nothing waits for the real quiet period. I left the old fixtures as ' +
    'they were: the alerts test reads its harbours from a table of its own, so the other tests do not see the new threshold column. The ' +
    'migration that adds the column is in db/migrations/0007_thresholds.sql, with the default filled in for every harbour already there.',
  'The changelog says that thresholds are set per harbour and that a reading no longer alerts twice when both paths queue it.',
];

/** Claude Code's records of turns `from` to `to` (exclusive): a prompt and its reply each. */
function turns(from: number, to: number): string {
  let out = '';
  for (let i = from; i < to; i++) {
    const at = (s: number) => `2026-02-03T10:${String(10 + i).padStart(2, '0')}:${String(s).padStart(2, '0')}.000Z`;
    const base = { sessionId: SESSION, cwd: '/home/dev/tides' };
    out += `${JSON.stringify({ type: 'user', ...base, uuid: `u${i}`, timestamp: at(0), message: { role: 'user', content: PROMPTS[i] } })}\n`;
    out += `${JSON.stringify({ type: 'assistant', ...base, uuid: `a${i}`, timestamp: at(30), message: { id: `m${i}`, role: 'assistant', model: 'claude-opus-4-5', content: [{ type: 'text', text: REPLIES[i] }] } })}\n`;
  }
  return out;
}

async function logIn(text: string): Promise<{ root: string; file: string; store: string }> {
  const root = path.join(tempDir(), 'root');
  mkdirSync(path.join(root, 'claude'), { recursive: true });
  const file = path.join(root, 'claude', `${SESSION}.jsonl`);
  await writeFile(file, text);
  return { root, file, store: path.join(tempDir(), 's.sqlite') };
}

function touch(file: string, seconds: number): void {
  const when = new Date(Date.now() + seconds * 1000);
  utimesSync(file, when, when);
}

test('a log touched, its bytes the same: not parsed, its new time stored; touched again, still not parsed', async () => {
  const { root, file, store } = await logIn(turns(0, 3));
  assert.deepEqual(await indexed(store, root), { parsed: 1, bytesParsed: statSync(file).size, written: 3, kept: 0 });
  const before = await rows(store);
  const [source] = before.sources as Array<{ file_hash: string | null; resume_offset: number }>;
  assert.match(source!.file_hash ?? '', /^[0-9a-f]{32}$/, 'the hash of its lines from its resume point');
  assert.ok(source!.resume_offset > 0, 'resumes at its last exchange');
  for (const seconds of [60, 120]) {
    touch(file, seconds);
    assert.deepEqual(await indexed(store, root), { parsed: 0, bytesParsed: 0, written: 0, kept: 0 }, 'not parsed');
    const after = await rows(store);
    assert.deepEqual(after.exchanges, before.exchanges);
    assert.deepEqual(after.sources, [{ ...before.sources[0]!, mtime_ms: Math.floor(statSync(file).mtimeMs) }], 'its new time stored, the rest as it was');
  }
  assert.deepEqual(await seenIn(store), await freshlyIndexed(root));
});

test('a log rewritten in place at the same size, a letter changed in its last exchange: parsed from its resume point, that exchange written again', async () => {
  const { root, file, store } = await logIn(turns(0, 3));
  await indexed(store, root);
  const [{ resume_offset: resumeOffset }] = (await rows(store)).sources as Array<{ resume_offset: number }>;
  const text = await readFile(file, 'utf8');
  const at = text.indexOf('test in tests/alerts');
  assert.ok(at > resumeOffset && at < Buffer.byteLength(text) - 1024, 'in the last exchange, before the 1 KB before its end (which a grown log checks)');
  assert.ok(at > 0);
  await writeFile(file, `${text.slice(0, at)}TEST${text.slice(at + 4)}`);
  assert.equal(statSync(file).size, Buffer.byteLength(text), 'the same size');
  const again = await indexed(store, root);
  assert.deepEqual({ parsed: again.parsed, written: again.written }, { parsed: 1, written: 1 });
  assert.equal(again.bytesParsed, Buffer.byteLength(text) - resumeOffset!, 'read from its resume point');
  const memory = await Memory.openReadOnly(store);
  try {
    const verbatims = await Promise.all((await memory.list()).map(async (s) => (await memory.exchange(s.exchangeId))!.verbatim));
    assert.ok(verbatims.some((v) => v.includes('The TEST in tests/alerts.test.ts')), 'the changed reply is stored');
  } finally {
    await memory.close();
  }
  assert.deepEqual(await seenIn(store), await freshlyIndexed(root));
  // its hash follows: touched now, it is not parsed
  touch(file, 60);
  assert.equal((await indexed(store, root)).parsed, 0);
});

test('a log rewritten at the same size before its last exchange is caught as before (by its head), and read whole', async () => {
  const { root, file, store } = await logIn(turns(0, 3));
  await indexed(store, root);
  const text = await readFile(file, 'utf8');
  // the first prompt: in the first 1 KB, not in the lines from the resume point
  const at = text.indexOf('tide alerts');
  await writeFile(file, `${text.slice(0, at)}TIDE${text.slice(at + 4)}`);
  assert.equal(statSync(file).size, Buffer.byteLength(text));
  const again = await indexed(store, root);
  assert.deepEqual({ parsed: again.parsed, bytesParsed: again.bytesParsed, written: again.written }, { parsed: 1, bytesParsed: text.length, written: 1 });
  assert.deepEqual(await seenIn(store), await freshlyIndexed(root));
});

test('a log that grew is read from its resume point, as before; touched after, it is not parsed', async () => {
  const { root, file, store } = await logIn(turns(0, 2));
  await indexed(store, root);
  const first = (await readFile(file)).length;
  await appendFile(file, turns(2, 4));
  const again = await indexed(store, root);
  assert.deepEqual({ parsed: again.parsed, written: again.written, kept: again.kept }, { parsed: 1, written: 2, kept: 1 });
  assert.ok(again.bytesParsed < statSync(file).size - first / 3, `from its resume point: ${again.bytesParsed} bytes`);
  assert.deepEqual(await seenIn(store), await freshlyIndexed(root));
  touch(file, 60);
  assert.deepEqual(await indexed(store, root), { parsed: 0, bytesParsed: 0, written: 0, kept: 0 });
});

test('a log whose last line was held back (a writer mid-line) is parsed once it is whole, at any time', async () => {
  const whole = turns(0, 3);
  const cut = whole.length - 40;
  const { root, file, store } = await logIn(whole.slice(0, cut));
  await indexed(store, root);
  const db = await Db.open(store, { readonly: true });
  try {
    assert.deepEqual(await db.get('SELECT pending_partial, parsed_offset FROM sources'), { pending_partial: 1, parsed_offset: whole.lastIndexOf('\n', cut) + 1 }, 'the third reply is not whole yet');
  } finally {
    await db.close();
  }
  touch(file, 60);
  assert.equal((await indexed(store, root)).parsed, 0, 'touched, the same partial line: not parsed');
  await appendFile(file, whole.slice(cut));
  const again = await indexed(store, root);
  assert.deepEqual({ parsed: again.parsed, written: again.written }, { parsed: 1, written: 1 });
  assert.match(JSON.stringify(await seenIn(store)), /alerts\.test\.ts sets the level/, 'the third reply stored');
  assert.deepEqual(await seenIn(store), await freshlyIndexed(root));
});
