import assert from 'node:assert/strict';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { createSearcher } from '../../src/core/search/searcher';
import type { SearchResult } from '../../src/core/search/types';
import { refreshRooms } from '../../src/core/store/roomStats';
import { Store } from '../../src/core/store/store';
import type { RoomAssignment } from '../../src/core/distill/types';
import type { FileTouch } from '../../src/core/model';
import { statementsOf } from './helpers';
import { type FixtureConversation, openFixture, writeConversation } from './searchFixture';

/**
 * What one search asks the store. Each statement is a round trip through the driver's thread pool (~0.15 ms
 * of wall time, some CPU), a large share of a search at 50K exchanges (docs/search-log.md, "Latency passes"): these tests pin
 * the statements that were merged, by what they read, not by how long they take.
 */

/** Two conversations of two exchanges each, all in three rooms (shown: 4 exchanges, 2 conversations), each touching two files. */
function conversation(file: string, agent: 'claude-code' | 'codex'): FixtureConversation {
  const rooms: RoomAssignment[] = [
    { type: 'concept', key: 'parsing', label: 'Parsing', relevance: 0.5 },
    { type: 'concept', key: 'zebra', label: 'Zebra', relevance: 0.9 },
    { type: 'concept', key: 'apple', label: 'Apple', relevance: 0.5 },
  ];
  const files: FileTouch[] = [{ path: 'src/zeta.ts', how: 'edit' }, { path: 'src/alpha.ts', how: 'read', lines: [{ start: 3, end: 9 }] }];
  return {
    file,
    agent,
    project: '/p/x',
    exchanges: ['the login page error', 'a login error again on the page'].map((said, i) => ({
      key: `${file}-${i}`,
      text: `User: ${said}\nAssistant: fixed the ${said} in alpha.ts (${agent}).`,
      files,
      startedAt: `2025-01-0${i + 1}T00:00:00Z`,
      distilled: { core: `Fixed ${said}.`, context: 'alpha.ts', rooms },
    })),
  };
}

test('one default search: one change check, conversations read with the continuations, rooms and files with the hit rows', async () => {
  const fx = await openFixture([conversation('one.jsonl', 'claude-code'), conversation('two.jsonl', 'codex')]);
  try {
    await refreshRooms(fx.store.db); // an index run counts the rooms' exchanges: shown from 3 in 2 conversations
    const searcher = createSearcher(fx.reads);
    const query = { text: 'login error page' };
    let first: SearchResult | undefined;
    // reads the store's change stamp and the exchanges' lengths, as a front end does first (else the first search's
    // postings, read ahead of its first change check, are read again after it)
    await searcher.prepare();
    const firstSql = await statementsOf(fx.store.db, async () => {
      first = await searcher.search(query);
    });
    const sql = await statementsOf(fx.store.db, () => searcher.search(query));
    const again = await searcher.search(query);
    assert.deepEqual(again, { ...first!, tookMs: again.tookMs });
    assert.equal(first!.hits.length, 4);
    for (const hit of first!.hits) {
      assert.deepEqual(hit.rooms.map((r) => r.label), ['Zebra', 'Apple', 'Parsing'], 'most relevant first, then by label');
      assert.deepEqual(hit.filesTouched, [{ path: 'src/alpha.ts', how: 'read', lines: [{ start: 3, end: 9 }] }, { path: 'src/zeta.ts', how: 'edit' }]);
    }

    const count = (re: RegExp) => firstSql.filter((s) => re.test(s)).length;
    assert.equal(count(/total_changes|data_version/), 1, `one change check:\n${firstSql.join('\n')}`);
    assert.equal(count(/\bconversation_id\b/), 1, 'the hit rows read conversations (the continuation statement too, on the reader); no statement of its own');
    assert.equal(count(/\blexicon_postings\b/), 1, 'one statement reads the postings of the query words');
    const at = (re: RegExp) => firstSql.findIndex((s) => re.test(s));
    assert.ok(at(/\blexicon_postings\b/) < at(/data_version/), 'the postings are read beside the change check, asked first');
    assert.equal(count(/\bexchange_rooms\b/), 1, 'rooms come with the hit rows');
    assert.equal(count(/\bfiles_touched\b/), 1, 'files come with the hit rows');
    assert.equal(count(/\bverbatim\b/), 1, 'each text is read once: the texts proximity reads are the hits shown');
    // the texts, the postings, the hit rows and the candidates' places the last search read are kept until the store
    // changes: asked again, a search reads nothing but the change check
    assert.deepEqual(sql.map((s) => /data_version/.test(s)), [true], `asked again:\n${sql.join('\n')}`);
  } finally {
    await fx.store.close();
  }
});

test('the one change check sees another connection\'s writes: the next search scores by the new statistics', async () => {
  const exchanges = Array.from({ length: 600 }, (_, i) => ({
    key: `x${i}`,
    text: `User: question ${i} about the widget${[3, 10, 14, 33].includes(i) ? ' zeppelin' : ''}\nAssistant: answer ${i}.`,
    startedAt: '2025-01-01T00:00:00Z',
  }));
  const fx = await openFixture([{ file: 'big.jsonl', agent: 'claude-code', project: '/p/big', exchanges }]);
  const other = await Store.open(path.join(fx.dir, 'recall.sqlite'));
  try {
    const searcher = createSearcher(fx.reads);
    const query = { text: 'zeppelin gadget', mode: 'verbatim/bm25' as const, perConversation: 600, limit: 50 };
    const before = await searcher.search(query);
    assert.equal(before.hits.length, 4);
    const more = Array.from({ length: 1500 }, (_, i) => ({ key: `z${i}`, text: `User: gadget ${i}\nAssistant: a gadget reply ${i}.`, startedAt: '2025-01-02T00:00:00Z' }));
    await writeConversation(other, fx.dir, { file: 'more.jsonl', agent: 'codex', project: '/p/big', exchanges: more });
    let after: SearchResult | undefined;
    const sql = await statementsOf(fx.store.db, async () => {
      after = await searcher.search(query);
    });
    assert.equal(after!.hits.length, 50, 'the new exchanges are found');
    const postings = sql.flatMap((s, i) => (/\blexicon_postings\b/.test(s) ? [i] : []));
    // read ahead of the change check, they were the postings kept from the search before (no statement); the change
    // check finds the store changed: they are read again after it, not used
    assert.equal(postings.length, 1, 'the postings kept from before the change are read again');
    assert.ok(postings[0]! > sql.findIndex((s) => /data_version/.test(s)), sql.join('\n'));
    assert.ok(after!.hits[0]!.score > before.hits[0]!.score, 'among more exchanges "zeppelin" is rarer: it weighs more');
  } finally {
    await other.close();
    await fx.store.close();
  }
});

describe('the second connection: the continuations beside proximity\'s reading', () => {
  const exchanges = Array.from({ length: 600 }, (_, i) => {
    const words = [`question ${i} about the widget`];
    if (i % 5 === 0) words.push('gearbox');
    if ([3, 10, 14, 33].includes(i)) words.push('zeppelin');
    return { key: `x${i}`, text: `User: ${words.join(' ')}\nAssistant: answer ${i}.`, startedAt: '2025-01-01T00:00:00Z' };
  });
  const query = { text: 'zeppelin gearbox', mode: 'verbatim/bm25' as const, perConversation: 600, limit: 50 };

  test('the continuations run on the store\'s reader, the lexicon and proximity on its own connection', async () => {
    const fx = await openFixture([{ file: 'big.jsonl', agent: 'claude-code', project: '/p/big', exchanges }]);
    try {
      const reader = await fx.store.reader();
      assert.ok(reader, 'the reader opens');
      const onReader = await statementsOf(reader, async () => {
        const onDb = await statementsOf(fx.store.db, () => createSearcher(fx.reads).search(query));
        // a first search finds the store changed (from nothing): what it read ahead is read again after the check
        const checked = onDb.findIndex((s) => /data_version/.test(s));
        assert.equal(onDb.filter((s, i) => i > checked && /\blexicon_postings\b/.test(s)).length, 1, 'one statement reads the postings');
        assert.ok(!onDb.some((s) => /bm25\(/.test(s)), 'FTS5 scores nothing');
      });
      assert.equal(onReader.filter((s) => /NOT e\.asked/.test(s)).length, 1, 'the continuations are read there, beside proximity\'s reading');
      assert.ok(!onReader.some((s) => /\blexicon_/.test(s)));
    } finally {
      await fx.store.close();
    }
  });

  test('inside a snapshot the reader is not used: a write committed meanwhile is not mixed in', async () => {
    const fx = await openFixture([{ file: 'big.jsonl', agent: 'claude-code', project: '/p/big', exchanges }]);
    const other = await Store.open(path.join(fx.dir, 'recall.sqlite'));
    try {
      const searcher = createSearcher(fx.reads);
      await fx.store.reader(); // opened before, as after any earlier search
      const scores = (r: SearchResult) => r.hits.map((h) => [h.exchangeId, h.score]);
      await fx.store.db.snapshot(async () => {
        const before = await searcher.search(query);
        // more zeppelins with gearboxes: the IDF of both words, so every score, changes for whoever sees them
        const more = Array.from({ length: 30 }, (_, i) => ({ key: `z${i}`, text: `User: zeppelin gearbox ${i}\nAssistant: ok.`, startedAt: '2025-01-02T00:00:00Z' }));
        await writeConversation(other, fx.dir, { file: 'more.jsonl', agent: 'codex', project: '/p/big', exchanges: more });
        assert.deepEqual(scores(await searcher.search(query)), scores(before), 'the snapshot\'s scores');
      });
      assert.equal((await searcher.search(query)).hits.filter((h) => /^z\d/.test(h.exchangeId)).length, 30, 'after it, the new exchanges are found');
    } finally {
      await other.close();
      await fx.store.close();
    }
  });

  test('the reader is closed with the store, and none is opened once it is closing', async () => {
    const fx = await openFixture();
    const reader = await fx.store.reader();
    assert.ok(reader);
    const closing = fx.store.close();
    assert.equal(await fx.store.reader(), undefined, 'a search still running gets no new reader');
    await closing;
    await assert.rejects(reader.all('SELECT 1'));
  });
});

test('warming runs a few searches, once a searcher (the code they run stays compiled); warming again runs none', async () => {
  const fx = await openFixture([conversation('one.jsonl', 'claude-code')]);
  try {
    const searcher = createSearcher(fx.reads);
    const postings = (sql: string[]) => sql.filter((s) => /\blexicon_postings\b/.test(s)).length;
    assert.ok(postings(await statementsOf(fx.store.db, () => searcher.warm())) >= 5, 'searches ran');
    assert.equal(postings(await statementsOf(fx.store.db, () => searcher.warm())), 0);
    assert.equal((await searcher.search({ text: 'login error' })).hits.length, 2, 'and it searches as before');
  } finally {
    await fx.store.close();
  }
});
