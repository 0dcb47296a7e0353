import assert from 'node:assert/strict';
import * as path from 'node:path';
import { test } from 'node:test';
import { RoomRegistry } from '../../src/core/distill/rooms';
import type { RoomAssignment } from '../../src/core/distill/types';
import type { FileTouch } from '../../src/core/model';
import { exchangeFilter } from '../../src/core/store/searchFilter';
import { readShownRooms } from '../../src/core/store/hitRows';
import { distilledOf, exchangesInRoom, listRooms } from '../../src/core/store/browse';
import { saveDistillBatch } from '../../src/core/store/distilledStore';
import { assignFamilies, HEADS, SET_FAMILIES } from '../../src/core/store/roomFamilies';
import type { Db } from '../../src/core/store/db';
import { ROOM_PAGE } from '../../src/core/store/roomPages';
import { markAllRoomsDirty, refreshRooms } from '../../src/core/store/roomStats';
import { Store } from '../../src/core/store/store';
import { TimeSlice } from '../../src/core/timeSlice';
import { msg, resetLines, statementsOf, storeConversation, tempDir } from './helpers';

// Rooms as a person browses them (issue 39): a project's near-duplicate labels shown as one room, and every
// room scoped to its project.

/** One conversation of `project` with one exchange per prompt (its own source file); returns the rows. */
async function addConversation(store: Store, session: string, project: string, prompts: readonly string[]): Promise<Array<{ n: number; id: string }>> {
  resetLines();
  const messages = prompts.flatMap((p, i) => [
    msg('prompt', `${p} (question ${i} of ${session})`, { timestamp: `2026-10-0${1 + i}T10:00:00Z` }),
    msg('reply', `Answer ${i} of ${session}: done, and the change is covered by a test.`, { timestamp: `2026-10-0${1 + i}T10:01:00Z` }),
  ]);
  return storeConversation(store, session, messages, project);
}

const concept = (label: string): RoomAssignment => ({ type: 'concept', key: label, label, relevance: 0.8 });

/** Distills exchange `n` of `project` into `rooms` (resolved as the distill stage resolves them); it touched `files`. */
async function distill(store: Store, n: number, project: string, rooms: readonly RoomAssignment[], files: readonly FileTouch[] = []): Promise<void> {
  // files_touched as the parse stores them (the segment finds them in tool calls)
  for (const f of files) await store.db.run('INSERT INTO files_touched(exchange_n, path, how) VALUES (?, ?, ?)', [n, f.path, f.how]);
  await saveDistillBatch(store.db, [{
    n, value: { exchangeCore: `core ${n}`, specificContext: '', rooms: [] }, rooms: new RoomRegistry(false).resolve(rooms, project),
    filesTouched: files, distiller: 'test', promptVersion: 'v1', contentHash: `h${n}`, tokens: 3, cache: false,
  }]);
}

const P = '/home/dev/bot';
const Q = '/home/dev/site';

/** Project P: a "Markdown" room and phrases made with it, in two conversations; project Q: the phrase alone. */
async function markdownStore(order: 'head first' | 'head last'): Promise<{ store: Store; ids: Map<string, string> }> {
  const store = await Store.open(path.join(tempDir('families-'), 'f.sqlite'));
  const a = await addConversation(store, 'a', P, ['Escape the Markdown', 'Fix the markdown formatting']);
  const b = await addConversation(store, 'b', P, ['More markdown formatting', 'Structured markdown output', 'Use MarkdownV2']);
  const c = await addConversation(store, 'c', Q, ['Markdown formatting on the site', 'Markdown formatting again']);
  const head = async (): Promise<void> => {
    await distill(store, a[0]!.n, P, [concept('Markdown')]);
    await refreshRooms(store.db);
  };
  if (order === 'head first') await head();
  await distill(store, a[1]!.n, P, [concept('markdown formatting')]);
  await distill(store, b[0]!.n, P, [concept('markdown formatting')]);
  await distill(store, b[1]!.n, P, [concept('structured markdown')]);
  await distill(store, b[2]!.n, P, [concept('MarkdownV2')]);
  for (const x of c) await distill(store, x.n, Q, [concept('Markdown formatting')]);
  await refreshRooms(store.db);
  if (order === 'head last') await head();
  const ids = new Map([...a, ...b, ...c].map((x, i) => [['a0', 'a1', 'b0', 'b1', 'b2', 'c0', 'c1'][i]!, x.id]));
  return { store, ids };
}

test('a phrase led by a one-word room of its project is shown in that room: "markdown formatting" and "MarkdownV2" in "Markdown"', async () => {
  const { store, ids } = await markdownStore('head first');
  try {
    const rooms = await listRooms(store.db, 'size');
    assert.deepEqual(rooms.map((r) => [r.label, r.project, r.count, r.conversations, r.aliases]), [['Markdown', P, 4, 2, ['markdown formatting']]]);
    const head = rooms[0]!;
    assert.deepEqual(new Set((await exchangesInRoom(store.db, head.id)).map((e) => e.exchangeId)), new Set(['a0', 'a1', 'b0', 'b2'].map((k) => ids.get(k))));
    // "structured markdown" ends with the name: a kind of output, not the room of Markdown; Q has no Markdown room
    assert.deepEqual((await listRooms(store.db, 'size', '', true)).map((r) => r.label).sort(), ['Markdown', 'Markdown formatting', 'structured markdown']);
    // a member's exchange shows the head as its room, a search in the room finds it, and its chip is the head
    assert.deepEqual((await distilledOf(store.db, ids.get('a1')!))?.rooms.map((r) => r.label), ['Markdown']);
    const filter = exchangeFilter({ room: head.id })!;
    const found = await store.db.all<{ id: string }>(`SELECT e.id FROM exchanges e JOIN conversations c ON c.id = e.conversation_id WHERE ${filter.sql}`, filter.params);
    assert.equal(found.length, 4);
    const shown = await readShownRooms(store.db);
    assert.equal(shown.size, 2, 'the head and its member "markdown formatting" (MarkdownV2 is keyed "markdown" itself)');
    assert.ok([...shown.values()].every((r) => r.id === head.id));
    // filtering by a member's words finds its head
    assert.deepEqual((await listRooms(store.db, 'size', 'formatting')).map((r) => r.label), ['Markdown']);
  } finally {
    await store.close();
  }
});

test('families do not depend on indexing order: the head found after its members gathers them the same', async () => {
  const first = await markdownStore('head first');
  const last = await markdownStore('head last');
  try {
    const view = async (s: Store) => (await listRooms(s.db, 'size', '', true)).map((r) => [r.id, r.label, r.count, r.conversations, r.aliases]);
    assert.deepEqual(await view(last.store), await view(first.store));
  } finally {
    await first.store.close();
    await last.store.close();
  }
});

test("a file room holds its project's exchanges that touched the file: README.md of one repository is not another's", async () => {
  const store = await Store.open(path.join(tempDir('file-rooms-'), 'r.sqlite'));
  try {
    const readme = { type: 'file' as const, key: 'README.md', label: 'README.md', relevance: 0.9 };
    const edit = (p: string): FileTouch => ({ path: p, how: 'edit' });
    const p1 = await addConversation(store, 'p1', P, ['Document the bot', 'Install steps']);
    const p2 = await addConversation(store, 'p2', P, ['Fix the intro', 'Badge in the docs']);
    const q1 = await addConversation(store, 'q1', Q, ['Site readme', 'Site readme again']);
    const q2 = await addConversation(store, 'q2', Q, ['Site docs']);
    for (const x of [p1[0]!, p1[1]!, p2[0]!]) await distill(store, x.n, P, [readme], [edit('README.md')]);
    // its main file was another, but it touched README.md too: it belongs in the file's room
    await distill(store, p2[1]!.n, P, [{ ...readme, key: 'docs/badge.svg', label: 'docs/badge.svg' }], [edit('docs/badge.svg'), { path: 'README.md', how: 'read' }]);
    for (const x of [...q1, ...q2]) await distill(store, x.n, Q, [readme], [edit('README.md')]);
    await refreshRooms(store.db);

    const files = (await listRooms(store.db, 'size')).filter((r) => r.type === 'file');
    assert.deepEqual(files.map((r) => [r.label, r.project, r.count, r.conversations]), [['README.md', P, 4, 2], ['README.md', Q, 3, 2]]);
    const inP = (await exchangesInRoom(store.db, files[0]!.id)).map((e) => e.exchangeId);
    assert.deepEqual(new Set(inP), new Set([...p1, ...p2].map((x) => x.id)));
  } finally {
    await store.close();
  }
});

test('one name written two ways is one room, named as its family wrote it: "GitHub" (keyed git_hub) in the room of "Github"', async () => {
  const store = await Store.open(path.join(tempDir('families-'), 'g.sqlite'));
  try {
    const a = await addConversation(store, 'a', P, ['Push to GitHub', 'GitHub login fails', 'Set up the SSH key']);
    const b = await addConversation(store, 'b', P, ['GitHub Actions again']);
    for (const x of [a[0]!, a[1]!, b[0]!]) await distill(store, x.n, P, [concept('GitHub')]);
    // the distiller files a name under the name, labelled by the phrase that carries it (offlineRooms.ts nameRooms)
    await distill(store, a[2]!.n, P, [{ type: 'concept', key: 'Github', label: 'Github SSH', relevance: 0.9 }]);
    await refreshRooms(store.db);
    assert.deepEqual((await listRooms(store.db, 'size', '', true)).map((r) => [r.label, r.count, r.conversations]), [['GitHub', 4, 2]]);
  } finally {
    await store.close();
  }
});

test('assigning families reads each wanted room and each change by index: no scan of rooms or of the JSON per row', async () => {
  const dir = tempDir();
  const store = await Store.open(path.join(dir, 'plans.sqlite'));
  try {
    const plan = async (sql: string): Promise<string[]> => (await store.db.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`, ['[]'])).map((r) => r.detail);
    // quadratic before: rooms searched by type only, with the whole array scanned again for each room
    assert.deepEqual(await plan(HEADS), ['SCAN j VIRTUAL TABLE INDEX 1:', 'SEARCH r USING INDEX rooms_scope (type=? AND project=? AND key=?)']);
    const update = await plan(SET_FAMILIES);
    assert.ok(!update.some((d) => d.includes('CORRELATED')), update.join('; '));
    assert.match(update.join('; '), /^SCAN j VIRTUAL TABLE .*; SEARCH rooms USING (COVERING )?INDEX sqlite_autoindex_rooms_1 \(id=\?\)$/);
  } finally {
    await store.close();
  }
});

test("assigning every room's family gives the event loop back between rooms (a first index's last refresh reads them all)", async () => {
  const { store } = await markdownStore('head first');
  try {
    const phrases = (await store.db.all<{ c: number }>("SELECT count(*) AS c FROM rooms WHERE type = 'concept' AND instr(key, '_') > 0"))[0]!.c;
    assert.ok(phrases >= 3, `phrase rooms in the fixture: ${phrases}`);
    let checks = 0;
    const slice = new (class extends TimeSlice {
      override async yieldIfDue(): Promise<void> {
        checks++;
      }
    })();
    await assignFamilies(store.db, 'all', slice);
    assert.ok(checks >= phrases, `the slice asked ${checks} times for ${phrases} rooms`);
  } finally {
    await store.close();
  }
});

/** The most rows one statement answered and the longest JSON array one was given while `fn` ran. */
async function largestStatement(db: Db, fn: () => Promise<unknown>): Promise<{ rows: number; array: number }> {
  const most = { rows: 0, array: 0 };
  const all = db.all.bind(db);
  const run = db.run.bind(db);
  const given = (params: readonly unknown[] = []): void => {
    for (const p of params) if (typeof p === 'string' && p.startsWith('[')) most.array = Math.max(most.array, (JSON.parse(p) as unknown[]).length);
  };
  db.all = (async <T>(sql: string, params?: never) => {
    given(params);
    const rows = await all<T>(sql, params);
    most.rows = Math.max(most.rows, rows.length);
    return rows;
  }) as typeof db.all;
  db.run = ((sql: string, params?: never) => (given(params), run(sql, params))) as typeof db.run;
  try {
    await fn();
  } finally {
    db.all = all;
    db.run = run;
  }
  return most;
}

test('a refresh of more rooms than a page reads, looks up and writes them a page at a time (a first index refreshes every room)', async () => {
  const { store } = await markdownStore('head first');
  try {
    const db = store.db;
    const head = (await db.get<{ id: string }>("SELECT id FROM rooms WHERE key = 'markdown' AND project = ?", [P]))!.id;
    const [a, b] = await db.all<{ n: number }>('SELECT e.n FROM exchanges e JOIN conversations c ON c.id = e.conversation_id WHERE c.project = ? LIMIT 2', [P]);
    // new phrase rooms led by "Markdown", as a distill batch writes them (dirty, never counted), each in two exchanges
    const many = 2 * ROOM_PAGE + 500;
    await db.run(
      `WITH RECURSIVE i(v) AS (SELECT 1 UNION ALL SELECT v + 1 FROM i WHERE v < ?)
       INSERT INTO rooms(id, type, key, label, project) SELECT 'many-' || v, 'concept', 'markdown_topic' || v, 'Markdown topic ' || v, ? FROM i`,
      [many, P],
    );
    for (const x of [a!, b!]) {
      await db.run("INSERT INTO exchange_rooms(exchange_n, room_id, relevance, label) SELECT ?, id, 0.5, label FROM rooms WHERE id LIKE 'many-%'", [x.n]);
    }
    const familyOfMany = async (): Promise<Array<{ family: string | null; rooms: number }>> =>
      db.all("SELECT family, count(*) AS rooms FROM rooms WHERE id LIKE 'many-%' GROUP BY family");

    const first = await largestStatement(db, () => refreshRooms(db));
    assert.deepEqual(await familyOfMany(), [{ family: head, rooms: many }]);
    assert.ok(first.rows <= ROOM_PAGE && first.array <= ROOM_PAGE, `one statement answered ${first.rows} rows, one was given ${first.array} ids`);

    // a repair assigns every family again: the same, a page at a time
    await db.run("UPDATE rooms SET family = NULL WHERE id LIKE 'many-%'");
    let statements: string[] = [];
    const again = await largestStatement(db, async () => {
      statements = await statementsOf(db, async () => {
        await markAllRoomsDirty(db);
        await refreshRooms(db);
      });
    });
    assert.deepEqual(await familyOfMany(), [{ family: head, rooms: many }]);
    assert.ok(again.rows <= ROOM_PAGE && again.array <= ROOM_PAGE, `one statement answered ${again.rows} rows, one was given ${again.array} ids`);
    // each page found by rowid or by the dirty rooms' index, not by reading and sorting every concept room again
    const pages = [...new Set(statements.filter((sql) => sql.startsWith('SELECT rowid AS n')))];
    assert.equal(pages.length, 2, pages.join('\n'));
    for (const sql of pages) {
      const plan = (await db.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`, [0])).map((r) => r.detail).join('; ');
      assert.doesNotMatch(plan, /TEMP B-TREE|SCAN rooms/, plan);
    }
  } finally {
    await store.close();
  }
});
