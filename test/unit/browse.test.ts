import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { conversationKey, segmentConversation } from '../../src/core/segment';
import {
  conversationNeighbours, distilledOf, exchangeListings, exchangesInRoom, exchangesTouchingFile, fileTouchCounts, listRooms,
  recentExchanges,
} from '../../src/core/store/browse';
import { saveDistillBatch } from '../../src/core/store/distilledStore';
import { refreshRooms } from '../../src/core/store/roomStats';
import { Store } from '../../src/core/store/store';
import { conversation, msg, resetLines, tempDir } from './helpers';

/** A real project folder: a path mentioned in prose is a file only when it exists there (files.ts). */
function workspaceWith(files: readonly string[]): string {
  const root = tempDir('shop-');
  for (const f of files) {
    mkdirSync(path.dirname(path.join(root, f)), { recursive: true });
    writeFileSync(path.join(root, f), '');
  }
  return root;
}

/** Three exchanges of one conversation; the first and last touch src/cart.ts; two are distilled into rooms. */
async function seeded(): Promise<{ store: Store; ids: string[] }> {
  resetLines();
  const conv = conversation([
    msg('prompt', 'Why is the cart total wrong in src/cart.ts?', { timestamp: '2026-10-01T10:00:00Z' }),
    msg('reply', 'Rounding happened per line; I changed src/cart.ts to round once at the end.', { timestamp: '2026-10-01T10:01:00Z' }),
    msg('prompt', 'Now make the retry backoff exponential please', { timestamp: '2026-10-02T10:00:00Z' }),
    msg('reply', 'Done: retries now wait 2^n * 100 ms, capped at 5 s, in src/retry.ts.', { timestamp: '2026-10-02T10:01:00Z' }),
    msg('prompt', 'Add a test for the cart rounding', { timestamp: '2026-10-03T10:00:00Z' }),
    msg('reply', 'Added a rounding test next to src/cart.ts covering 3 lines of 0.335 EUR.', { timestamp: '2026-10-03T10:01:00Z' }),
  ], workspaceWith(['src/cart.ts', 'src/retry.ts']));
  const seg = segmentConversation(conv, { minChars: 10, maxPlies: 20 });
  const store = await Store.open(path.join(tempDir(), 'b.sqlite'));
  await store.writeParse({
    state: {
      path: conv.sourceFile, agent: 'claude-code', size: 600, mtimeMs: 1, headHash: 'h', anchorHash: 'a',
      parsedOffset: 600, nextLine: 7, resumeOffset: 400, resumeLine: 5, resumePly: 4, pendingPartial: false,
    },
    full: true, fromOffset: 0, fromLine: 1,
    conversations: [{ key: conversationKey(conv), meta: conv.meta }],
    exchanges: seg.exchanges, dropped: seg.dropped, skipped: [],
  });
  const rows = await store.db.all<{ n: number; id: string }>('SELECT n, id FROM exchanges ORDER BY line_start');
  const room = (label: string, key: string) => ({ id: `concept:${key}`, type: 'concept' as const, key, label, relevance: 0.9 });
  const common = { distiller: 'test', promptVersion: 'v1', contentHash: 'x', tokens: 20, cache: false, filesTouched: [] };
  await saveDistillBatch(store.db, [
    { ...common, n: rows[0]!.n, value: { exchangeCore: 'Cart total now rounds once', specificContext: 'src/cart.ts', rooms: [] }, rooms: [room('Cart rounding', 'cart-round')] },
    { ...common, n: rows[2]!.n, value: { exchangeCore: 'Added a rounding test', specificContext: '0.335 EUR', rooms: [] }, rooms: [room('Cart rounding', 'cart-round'), room('Testing', 'test')] },
  ]);
  return { store, ids: rows.map((r) => r.id) };
}

test('lists exchanges by touched file, newest first, with their distilled core', async () => {
  const { store, ids } = await seeded();
  try {
    const hist = await exchangesTouchingFile(store.db, 'src/cart.ts');
    assert.deepEqual(hist.map((h) => h.exchangeId), [ids[2], ids[0]]);
    assert.equal(hist[0]!.core, 'Added a rounding test');
    assert.equal(hist[0]!.how, 'mention');
    assert.deepEqual(await exchangesTouchingFile(store.db, 'src/none.ts'), []);
    const counts = new Map((await fileTouchCounts(store.db)).map((c) => [c.path, c]));
    assert.equal(counts.get('src/cart.ts')?.count, 2);
    assert.equal(counts.get('src/cart.ts')?.lastAt, '2026-10-03T10:00:00Z');
    assert.equal(counts.get('src/retry.ts')?.count, 1);
  } finally {
    await store.close();
  }
});

test('finds neighbours in the conversation and the distilled object', async () => {
  const { store, ids } = await seeded();
  try {
    assert.deepEqual(await conversationNeighbours(store.db, ids[1]!), { previous: ids[0], next: ids[2], position: 2, total: 3 });
    assert.deepEqual(await conversationNeighbours(store.db, ids[0]!), { next: ids[1], position: 1, total: 3 });
    assert.equal(await conversationNeighbours(store.db, 'nope'), undefined);
    const d = await distilledOf(store.db, ids[2]!);
    assert.equal(d?.exchangeCore, 'Added a rounding test');
    assert.deepEqual(d?.rooms, [], 'rooms of one conversation are facets, not rooms of the tree (roomStats.test.ts)');
    assert.deepEqual(d?.facets?.map((r) => r.label), ['Cart rounding', 'Testing']);
    assert.equal(await distilledOf(store.db, ids[1]!), undefined);
  } finally {
    await store.close();
  }
});

test('lists rooms by size or recency with a filter, and the exchanges of a room', async () => {
  const { store, ids } = await seeded();
  try {
    await refreshRooms(store.db);
    assert.deepEqual(await listRooms(store.db, 'size'), [], 'below the minimum size (roomStats.test.ts)');
    assert.deepEqual((await listRooms(store.db, 'size', '', true)).map((r) => [r.label, r.count]), [['Cart rounding', 2], ['Testing', 1]]);
    assert.deepEqual((await listRooms(store.db, 'size', 'TEST', true)).map((r) => r.label), ['Testing']);
    assert.deepEqual(await listRooms(store.db, 'size', '%', true), [], 'LIKE wildcards in the filter are literal');
    assert.deepEqual((await exchangesInRoom(store.db, 'concept:cart-round')).map((e) => e.exchangeId), [ids[2], ids[0]]);
    assert.deepEqual((await recentExchanges(store.db, 2)).map((e) => e.exchangeId), [ids[2], ids[1]]);
    assert.deepEqual((await exchangeListings(store.db, [ids[1]!, 'missing', ids[0]!])).map((e) => e.exchangeId), [ids[1], ids[0]]);
  } finally {
    await store.close();
  }
});
