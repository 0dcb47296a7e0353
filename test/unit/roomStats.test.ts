import assert from 'node:assert/strict';
import { cpSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { indexWorkspace } from '../../src/core/indexer';
import { listRooms, roomListings } from '../../src/core/store/browse';
import { type DistilledRecord, saveDistillBatch } from '../../src/core/store/distilledStore';
import { MIN_ROOM_CONVERSATIONS, MIN_ROOM_EXCHANGES, refreshRooms } from '../../src/core/store/roomStats';
import { Store } from '../../src/core/store/store';
import { FIXTURES, msg, resetLines, storeConversation, tempDir } from './helpers';

/** `count` exchanges in conversation `session` (its own source file), each with a distinct prompt. */
async function addConversation(store: Store, session: string, count: number): Promise<number[]> {
  resetLines();
  const messages = [];
  for (let i = 0; i < count; i++) {
    messages.push(msg('prompt', `Question ${i} of ${session}: why does the session middleware drop cookies?`));
    messages.push(msg('reply', `Answer ${i} of ${session}: the session middleware ran after the router, so cookies were never set.`));
  }
  return (await storeConversation(store, session, messages)).map((r) => r.n);
}

function record(n: number, label: string): DistilledRecord {
  return {
    n, value: { exchangeCore: `core ${n}`, specificContext: '', rooms: [] },
    rooms: [{ id: 'room-session-middleware', type: 'concept', key: 'middleware_session', label, relevance: 0.9 }],
    filesTouched: [], distiller: 'test', promptVersion: 'v1', contentHash: `h${n}`, tokens: 3, cache: false,
  };
}

test(`a room is shown from ${MIN_ROOM_EXCHANGES} exchanges of ${MIN_ROOM_CONVERSATIONS} conversations; its label is the one used most`, async () => {
  const store = await Store.open(path.join(tempDir('rooms-'), 'r.sqlite'));
  try {
    const a = await addConversation(store, 'a', 3);
    const b = await addConversation(store, 'b', 1);
    // three exchanges of one conversation: a facet, not a room
    await saveDistillBatch(store.db, a.map((n) => record(n, 'session middleware')));
    await refreshRooms(store.db);
    assert.deepEqual(await listRooms(store.db), []);
    assert.deepEqual((await listRooms(store.db, 'size', '', true)).map((r) => [r.count, r.conversations]), [[3, 1]]);

    // a fourth exchange from a second conversation: now a room, counted incrementally (only dirty rooms)
    await saveDistillBatch(store.db, [record(b[0]!, 'Session Middleware')]);
    assert.equal(await refreshRooms(store.db), 1);
    assert.equal(await refreshRooms(store.db), 0, 'nothing changed, nothing recounted');
    const [room] = await roomListings(store.db);
    assert.equal(room?.id, 'room-session-middleware', 'the id does not change as the room grows');
    assert.deepEqual([room?.exchanges, room?.conversations, room?.exchangeIds.length], [4, 2, 4]);
    assert.equal(room?.label, 'session middleware', 'the label the exchanges used most');

    // re-labelled by usage, and gone below the minimum when exchanges leave (re-indexed or deleted)
    await saveDistillBatch(store.db, a.slice(0, 2).map((n) => record(n, 'Session Middleware')));
    await refreshRooms(store.db);
    assert.equal((await listRooms(store.db))[0]?.label, 'Session Middleware');
    await store.db.run('DELETE FROM exchanges WHERE n = ?', [b[0]!]);
    await refreshRooms(store.db);
    assert.deepEqual(await listRooms(store.db), []);
  } finally {
    await store.close();
  }
});

/** Copies every fixture file, JSONL files cut to their first `share` of lines. */
function copyFixtures(to: string, share: number): void {
  cpSync(FIXTURES, to, { recursive: true });
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const p = path.join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (p.endsWith('.jsonl')) {
        const lines = readFileSync(p, 'utf8').split('\n');
        writeFileSync(p, lines.slice(0, Math.ceil(lines.length * share)).join('\n') + '\n');
      }
    }
  };
  walk(to);
}

async function snapshot(store: Store): Promise<unknown> {
  const objects = await store.db.all(
    `SELECT e.id, d.core, d.context, (SELECT group_concat(x.room_id || ':' || x.label, ',') FROM
       (SELECT room_id, label FROM exchange_rooms WHERE exchange_n = e.n ORDER BY room_id) x) AS rooms
     FROM exchanges e JOIN distilled d ON d.exchange_n = e.n ORDER BY e.id`,
  );
  return { objects, rooms: await roomListings(store.db, true) };
}

test('same bytes, same distilled objects and rooms: a store that grew equals a clean index (issue 18 item 8)', async () => {
  const discover = (root: string) => ({ workspaceRoots: [], claudeRoots: [], codexRoots: [], extraRoots: [root], includeSubagents: true });
  const segment = { minChars: 100, maxPlies: 20 };
  const clean = await Store.open(path.join(tempDir('grown-'), 'clean.sqlite'));
  const grown = await Store.open(path.join(tempDir('grown-'), 'grown.sqlite'));
  try {
    // the grown store sees the transcripts at a third, then two thirds, then whole; the clean one only whole
    const root = tempDir('grown-root-');
    for (const share of [1 / 3, 2 / 3, 1]) {
      copyFixtures(root, share);
      await indexWorkspace(grown, { discover: discover(root), segment });
    }
    await indexWorkspace(clean, { discover: discover(root), segment });
    const a = (await snapshot(clean)) as { objects: unknown[] };
    assert.ok(a.objects.length >= 8);
    assert.deepEqual(await snapshot(grown), a);
  } finally {
    await clean.close();
    await grown.close();
  }
});
