import assert from 'node:assert/strict';
import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { test } from 'node:test';
import { indexSource } from '../../src/core/indexer';
import { copilotLogAdapter } from '../../src/core/sources/copilot';
import { replayMutationLog } from '../../src/core/sources/copilotLog';
import { splitLines } from '../../src/core/sources/lines';
import { Store } from '../../src/core/store/store';
import { FIXTURES, tempDir } from './helpers';

/**
 * Copilot's mutation log, re-read after an append: the replay continues from where the last one ended when
 * the log only grew, and starts again from the first line when VS Code compacted or cut it.
 */

const LOG = path.join(FIXTURES, 'copilot', 'workspaceStorage', '7f3e2a', 'chatSessions', 'copilot-session-1.jsonl');
const segment = { minChars: 100, maxPlies: 20 };

/** The fixture's entries, one line each with its newline. */
async function entries(): Promise<string[]> {
  return (await readFile(LOG, 'utf8')).split(/(?<=\n)/);
}

/** A new session file in a storage folder of its own (its path is what the kept replay is known by). */
async function sessionFile(): Promise<string> {
  const dir = path.join(tempDir('copilot-resume-'), 'workspaceStorage', 'abc', 'chatSessions');
  await mkdir(dir, { recursive: true });
  return path.join(dir, 'copilot-session-1.jsonl');
}

/** What a store holds of its exchanges, skipped lines and conversations (no row numbers or paths). */
async function contents(store: Store): Promise<unknown> {
  const exchanges = [];
  for (const s of await store.listExchanges({})) {
    const e = (await store.getExchange(s.exchangeId))!;
    const at = (await store.recordRange(s.exchangeId))!;
    exchanges.push({ id: s.exchangeId, lines: [e.lineStart, e.lineEnd, at.byteStart], title: e.title, prompt: e.prompt, verbatim: e.verbatim, files: e.filesTouched });
  }
  const skipped = await store.db.all('SELECT line, reason FROM skipped_lines ORDER BY line, reason');
  const conversations = await store.db.all('SELECT session_id, title, started_at, model FROM conversations');
  return { exchanges, skipped, conversations };
}

/** Runs `fn` on a new store, closed after it. */
async function withStore<T>(fn: (store: Store) => Promise<T>): Promise<T> {
  const store = await Store.open(path.join(tempDir('copilot-resume-'), 's.sqlite'));
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

/** The same file's bytes indexed once, whole, into a new store. */
async function indexedWhole(text: string): Promise<unknown> {
  const file = await sessionFile();
  await writeFile(file, text);
  return withStore(async (store) => {
    await indexSource(store, file, copilotLogAdapter, segment);
    return contents(store);
  });
}

test('a log that only grew continues its last replay: each append parses only its bytes, and the store ends as a whole replay leaves it', async () => {
  const lines = await entries();
  const file = await sessionFile();
  await withStore(async (store) => {
    await writeFile(file, lines[0]!);
    await indexSource(store, file, copilotLogAdapter, segment);
    // appends, a response truncated and rewritten, a request replaced by truncation, a title, a deletion, an unknown kind
    for (const line of lines.slice(1)) {
      await appendFile(file, line);
      const r = await indexSource(store, file, copilotLogAdapter, segment);
      assert.notEqual(r, 'unchanged');
      assert.equal(r !== 'unchanged' && r.bytes, Buffer.byteLength(line), 'only the appended entry is read');
    }
    assert.deepEqual(await contents(store), await indexedWhole(lines.join('')));
    const { exchanges, skipped } = (await contents(store)) as { exchanges: Array<{ lines: number[]; title: string }>; skipped: unknown[] };
    assert.deepEqual(exchanges.map((e) => e.lines), [[1, 1, 0], [2, 5, lines[0]!.length], [7, 9, Buffer.byteLength(lines.slice(0, 6).join(''))]]);
    assert.deepEqual(skipped, [{ line: 1, reason: 'unknown-record' }, { line: 10, reason: 'unknown-record' }]);
    assert.equal(exchanges[0]!.title, 'Harbour code lookup', 'the title set on line 8');
  });
});

test('a log VS Code compacted (rewritten as one whole state, longer than what was read) is replayed from its first line', async () => {
  const lines = await entries();
  const file = await sessionFile();
  await withStore(async (store) => {
    const before = lines.slice(0, 2).join('');
    await writeFile(file, before);
    await indexSource(store, file, copilotLogAdapter, segment);
    const { state } = replayMutationLog(splitLines(Buffer.from(lines.join('')), 0, 1, { holdBackPartial: true }).lines);
    const compacted = `${JSON.stringify({ kind: 0, v: state })}\n`;
    // the trap: the same first bytes and a longer file, so only the bytes before the old end tell it was rewritten
    assert.ok(compacted.length > before.length && compacted.slice(0, 1024) === before.slice(0, 1024));
    await writeFile(file, compacted);
    const r = await indexSource(store, file, copilotLogAdapter, segment);
    assert.equal(r !== 'unchanged' && r.bytes, Buffer.byteLength(compacted), 'read whole');
    assert.deepEqual(await contents(store), await indexedWhole(compacted));
  });
});

test('a log cut back is replayed from its first line; appends after that continue the new replay', async () => {
  const lines = await entries();
  const file = await sessionFile();
  await withStore(async (store) => {
    await writeFile(file, lines.join(''));
    await indexSource(store, file, copilotLogAdapter, segment);
    const cut = lines.slice(0, 6).join('');
    await writeFile(file, cut);
    const r = await indexSource(store, file, copilotLogAdapter, segment);
    assert.equal(r !== 'unchanged' && r.bytes, Buffer.byteLength(cut), 'read whole');
    assert.deepEqual(await contents(store), await indexedWhole(cut));
    await appendFile(file, lines[6]!);
    const appended = await indexSource(store, file, copilotLogAdapter, segment);
    assert.equal(appended !== 'unchanged' && appended.bytes, Buffer.byteLength(lines[6]!), 'resumed again');
    assert.deepEqual(await contents(store), await indexedWhole(lines.slice(0, 7).join('')));
  });
});

test('a last entry read before its newline was written: the next run replays the log whole, its lines numbered as a whole read numbers them', async () => {
  const lines = await entries();
  const file = await sessionFile();
  await withStore(async (store) => {
    const head = lines.slice(0, 3).join('');
    await writeFile(file, head.slice(0, -1)); // the third entry parses without its newline
    await indexSource(store, file, copilotLogAdapter, segment);
    await appendFile(file, `\n${lines.slice(3).join('')}`);
    const r = await indexSource(store, file, copilotLogAdapter, segment);
    assert.equal(r !== 'unchanged' && r.bytes, Buffer.byteLength(lines.join('')), 'read whole');
    assert.deepEqual(await contents(store), await indexedWhole(lines.join('')));
  });
});
