import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { Memory } from '../../src/core/memory';
import { FIXTURES, tempDir } from './helpers';

const SESSION = path.join(FIXTURES, 'specstory', '.specstory', 'history', '2025-06-20_08-47-11Z-gauge-csv-import.md');

/**
 * A workspace whose SpecStory history holds one session under two names, as SpecStory writes some: the
 * same chat, its title time once in local time and once in UTC.
 */
function workspaceWithTwoCopies(): { root: string; utc: string; local: string } {
  const root = tempDir('dup-');
  const history = path.join(root, 'tidepool', '.specstory', 'history');
  mkdirSync(history, { recursive: true });
  const utc = path.join(history, '2025-06-20_08-47Z-gauge-csv-import.md');
  const local = path.join(history, '2025-06-20_04-47-gauge-csv-import.md');
  copyFileSync(SESSION, utc);
  writeFileSync(local, readFileSync(SESSION, 'utf8').replace('(2025-06-20 08:47:11)', '(2025-06-20 04:47:11)'));
  return { root, utc, local };
}

async function indexed(root: string): Promise<Memory> {
  const memory = await Memory.open(path.join(root, 'recall.sqlite'));
  await memory.index({
    discover: { workspaceRoots: [path.join(root, 'tidepool')], claudeRoots: [], codexRoots: [], extraRoots: [], includeSubagents: true },
    segment: { minChars: 100, maxPlies: 20, workspaceRoot: path.join(root, 'tidepool') },
  });
  return memory;
}

test('one SpecStory session saved under two file names is one memory: once in counts, results and rooms, both files as provenance', async () => {
  const { root, utc, local } = workspaceWithTwoCopies();
  const single = await indexed(tempDirWith(SESSION));
  const memory = await indexed(root);
  try {
    const expected = (await single.stats()).exchanges;
    assert.ok(expected >= 2);
    const stats = await memory.stats();
    assert.equal(stats.sources, 2, 'both files are sources');
    assert.equal(stats.exchanges, expected, 'counted once');
    assert.equal(stats.conversations, (await single.stats()).conversations, 'one conversation, not one per file');

    const hits = (await memory.search({ text: 'CSV importer drops the last reading', perConversation: 10 })).hits;
    assert.ok(hits.length > 0);
    assert.equal(new Set(hits.map((h) => h.exchangeId)).size, hits.length);
    assert.ok(hits.length <= expected, 'no hit shown twice');

    for (const room of await memory.rooms()) assert.ok(room.count <= expected, `${room.label}: ${room.count}`);

    // the kept row is under one file; the other is recorded beside it, at its own lines
    const first = await memory.exchange(hits[0]!.exchangeId);
    assert.ok(first);
    const files = [first.file, ...(first.copies ?? []).map((c) => c.file)].sort();
    assert.deepEqual(files, [local, utc].sort());
    assert.deepEqual(first.copies?.map((c) => [c.lineStart, c.lineEnd]), [[first.lineStart, first.lineEnd]]);
  } finally {
    await memory.close();
    await single.close();
  }
});

test('re-parsing the file that keeps the row keeps the copy recorded for the other', async () => {
  const { root, utc, local } = workspaceWithTwoCopies();
  const memory = await indexed(root);
  try {
    const [row] = await memory.list({ limit: 1 });
    const owner = row!.file;
    // the owning file is rewritten (SpecStory regenerates histories): same content, new bytes on disk
    writeFileSync(owner, `${readFileSync(owner, 'utf8')}\n`);
    await memory.index({
      discover: { workspaceRoots: [path.join(root, 'tidepool')], claudeRoots: [], codexRoots: [], extraRoots: [], includeSubagents: true },
      segment: { minChars: 100, maxPlies: 20 },
    });
    const again = await memory.exchange(row!.exchangeId);
    assert.equal(again?.file, owner);
    assert.deepEqual(again?.copies?.map((c) => c.file), [owner === utc ? local : utc]);
  } finally {
    await memory.close();
  }
});

test('the file that kept the row rewritten without the conversation: the other file keeps it, nothing is lost', async () => {
  const { root, utc, local } = workspaceWithTwoCopies();
  const memory = await indexed(root);
  try {
    const before = await memory.list();
    const owner = before[0]!.file;
    const other = owner === utc ? local : utc;
    assert.ok(before.every((e) => e.file === owner), 'one file holds every row');
    // SpecStory regenerates the owner as another, short chat: none of the exchanges are in it any more
    writeFileSync(owner, '# Another chat (2025-06-21 10:00:00)\n\n_**User**_\n\nhello\n');
    await memory.index({
      discover: { workspaceRoots: [path.join(root, 'tidepool')], claudeRoots: [], codexRoots: [], extraRoots: [], includeSubagents: true },
      segment: { minChars: 100, maxPlies: 20 },
    });
    const after = await memory.list();
    assert.deepEqual(after.map((e) => e.exchangeId).sort(), before.map((e) => e.exchangeId).sort());
    assert.ok(after.every((e) => e.file === other), 'held by the other file now');
    const one = await memory.exchange(after[0]!.exchangeId);
    assert.deepEqual(one?.copies ?? [], [], 'no copy recorded in the file that no longer has it');
    assert.equal((await memory.search({ text: 'CSV importer drops the last reading' })).hits.length > 0, true);
  } finally {
    await memory.close();
  }
});

/** A SpecStory history of `files` (name -> text) in a workspace of its own. */
function historyOf(files: Record<string, string>): string {
  const root = tempDir('history-');
  const history = path.join(root, 'tidepool', '.specstory', 'history');
  mkdirSync(history, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(history, name), text);
  return root;
}

/** An older export's chat (no message times): each [prompt, answer] an exchange. */
function olderExport(title: string, exchanges: ReadonlyArray<readonly [string, string]>): string {
  const turns = exchanges.map(([prompt, answer]) => `_**User**_\n\n${prompt}\n\n---\n\n_**Assistant**_\n\n${answer}\n\n---\n`);
  return `<!-- Generated by SpecStory -->\n\n# ${title}\n\n${turns.join('\n')}`;
}

const PADDING = 'The change is small, covered by the existing tests, and the formatter has been run over the module.';

test('two sessions opening with the same bare prompt, without message times, are two exchanges (one was lost as the other\'s copy)', async () => {
  const root = historyOf({
    '2025-06-20_08-47Z-alpha.md': olderExport('Alpha (2025-06-20 08:47:11)', [['Please proceed.', `I renamed the gauge importer to harbour_reader. ${PADDING}`]]),
    '2025-07-01_10-00Z-beta.md': olderExport('Beta (2025-07-01 10:00:00)', [['Please proceed.', `The migration now drops the obsolete lighthouse table. ${PADDING}`]]),
  });
  const memory = await indexed(root);
  try {
    assert.equal((await memory.stats()).exchanges, 2);
    for (const word of ['harbour_reader', 'lighthouse']) {
      assert.equal((await memory.search({ text: word })).hits.length, 1, word);
    }
  } finally {
    await memory.close();
  }
});

test('one session saved by an older SpecStory (no message times) and a newer one (times, session header, models) is one memory', async () => {
  const older = readFileSync(SESSION, 'utf8');
  const newer = older
    .replace('<!-- Generated by SpecStory -->', '<!-- Generated by SpecStory -->\n\n<!-- vscode Session 0f2a6c1e-7b1d-4c55-9a40-3e6f0d2b8c11 (2025-06-20 08:47Z) -->')
    .replace(/_\*\*User\*\*_/g, '_**User (2025-06-20 08:49Z)**_')
    .replace(/_\*\*Assistant[^*]*\*\*_/g, '_**Assistant (copilot/claude-sonnet-4.5)**_');
  assert.notEqual(newer, older);
  const root = historyOf({ '2025-06-20_08-47-11Z-gauge-csv-import.md': older, '2025-06-20_08-47Z-gauge-csv-import-the-whole-title.md': newer });
  const single = await indexed(tempDirWith(SESSION));
  const memory = await indexed(root);
  try {
    assert.equal((await memory.stats()).sources, 2);
    assert.equal((await memory.stats()).exchanges, (await single.stats()).exchanges);
    const [first] = (await memory.search({ text: 'CSV importer drops the last reading', perConversation: 10 })).hits;
    assert.equal((await memory.exchange(first!.exchangeId))?.copies?.length, 1, 'the other file is recorded as a copy');
  } finally {
    await memory.close();
    await single.close();
  }
});

function tempDirWith(file: string): string {
  const root = tempDir('single-');
  const history = path.join(root, 'tidepool', '.specstory', 'history');
  mkdirSync(history, { recursive: true });
  copyFileSync(file, path.join(history, path.basename(file)));
  return root;
}
