import assert from 'node:assert/strict';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createSearcher } from '../../src/core/search/searcher';
import { MARK_END, MARK_START } from '../../src/core/search/snippet';
import { queryTerms } from '../../src/core/search/terms';
import type { Searcher, SearchResult } from '../../src/core/search/types';
import { Db } from '../../src/core/store/db';
import { migrate } from '../../src/core/store/schema';
import { SearchReads } from '../../src/core/store/searchReads';
import { Store } from '../../src/core/store/store';
import { searchableText } from '../../src/core/words';
import { tempDir } from './helpers';
import { type Fixture, type FixtureConversation, openFixture } from './searchFixture';

/** What the verbatim index holds and how queries are cut into words (issue 13's defects). */
const CONVERSATIONS: readonly FixtureConversation[] = [
  {
    file: 'labels.jsonl',
    agent: 'claude-code',
    project: '/p/x',
    exchanges: [
      { key: 'said-user', text: 'User: rename the assistant helper in the user profile\nAssistant: Renamed it to profileHelper.', startedAt: '2025-01-01T00:00:00Z' },
      {
        key: 'labels-only',
        text: 'User: bump the version\nAssistant: Bumped the version.\n[tool] Bash npm version minor\n\n[result] v2.1.0… [812 more chars]',
        startedAt: '2025-01-02T00:00:00Z',
      },
      { key: 'said-tool', text: 'User: the tool result parser drops more fields\nAssistant: Fixed the parser.', startedAt: '2025-01-03T00:00:00Z' },
    ],
  },
  {
    file: 'words.jsonl',
    agent: 'codex',
    project: '/p/x',
    exchanges: [
      { key: 'keys', text: 'User: press the m key and then the t key in vim\nAssistant: Those keys move the cursor.', startedAt: '2025-02-01T00:00:00Z' },
      { key: 'contraction', text: "User: I'm sure the cache isn't warm after deploy\nAssistant: It wasn't; I warmed the cache.", startedAt: '2025-02-02T00:00:00Z' },
    ],
  },
  {
    file: 'cjk.jsonl',
    agent: 'claude-code',
    project: '/p/x',
    exchanges: [
      { key: 'zh', text: 'User: 数据库连接失败了怎么办\nAssistant: 请检查连接池的配置。', startedAt: '2025-03-01T00:00:00Z' },
      { key: 'ja', text: 'User: データベースの接続に失敗しました\nAssistant: 接続プールの設定を確認してください。', startedAt: '2025-03-02T00:00:00Z' },
      { key: 'ko', text: 'User: 데이터베이스에서 연결이 실패했습니다\nAssistant: 연결 풀 설정을 확인하세요.', startedAt: '2025-03-03T00:00:00Z' },
      { key: 'th', text: 'User: การเชื่อมต่อฐานข้อมูลล้มเหลว\nAssistant: ตรวจสอบการตั้งค่าพูล', startedAt: '2025-03-04T00:00:00Z' },
    ],
  },
  {
    file: 'cyrillic.jsonl',
    agent: 'aider',
    project: '/p/y',
    exchanges: [
      { key: 'ru', text: 'User: сам запроси доступ к файлам\nAssistant: Пришлите ещё InputSimulator.cs и хук диктовки.', startedAt: '2025-04-01T00:00:00Z' },
      { key: 'uk', text: 'User: перевір логи сервера\nAssistant: У логах немає помилок, файлів конфігурації теж.', startedAt: '2025-04-02T00:00:00Z' },
    ],
  },
  {
    file: 'latin.jsonl',
    agent: 'aider',
    project: '/p/z',
    exchanges: [
      { key: 'es', text: 'User: revisé el código fuente del módulo de pagos\nAssistant: La validación del código está en pagos.ts.', startedAt: '2025-05-01T00:00:00Z' },
      { key: 'es-plain', text: 'User: el codigo del carrito\nAssistant: Esta en carrito.ts, sin validacion.', startedAt: '2025-05-02T00:00:00Z' },
    ],
  },
];

describe('verbatim index and query words', () => {
  let fx: Fixture;
  let searcher: Searcher;
  const keysOf = (r: SearchResult) => r.hits.map((h) => fx.keys.get(h.exchangeId));
  const find = async (text: string) => keysOf(await searcher.search({ text, mode: 'verbatim/bm25', perConversation: 10 }));

  before(async () => {
    fx = await openFixture(CONVERSATIONS);
    searcher = createSearcher(fx.reads);
  });
  after(() => fx?.store.close());

  test('role labels, tool names and truncation markers are not indexed as words', async () => {
    assert.deepEqual(await find('user'), ['said-user']);
    assert.deepEqual(await find('assistant'), ['said-user']);
    assert.deepEqual(await find('tool'), ['said-tool']);
    assert.deepEqual(await find('result'), ['said-tool']);
    assert.deepEqual(await find('more chars'), ['said-tool']);
    assert.deepEqual(await find('bash'), []);
    // what the tool did stays searchable
    assert.deepEqual(await find('npm minor'), ['labels-only']);
  });

  test('a snippet marks the word, not the label', async () => {
    const r = await searcher.search({ text: 'user', mode: 'verbatim/bm25' });
    const snippet = r.hits[0]!.snippet;
    assert.ok(!/User:/.test(snippet), `the label is neither marked nor shown: ${snippet}`);
    assert.doesNotMatch(snippet, /^…ename/, 'the excerpt starts at a word');
    assert.ok(snippet.includes(`the ${MARK_START}user${MARK_END} profile`), snippet);
    assert.equal(snippet.split(MARK_START).length, 2, snippet);
  });

  test('contractions are function words, not fragments; possessives and elisions keep their word', () => {
    assert.deepEqual(queryTerms("I'm sure the cache isn't warm, aren't we?"), ['sure', 'cache', 'warm']);
    assert.deepEqual(queryTerms('it\u2019s the user\u2019s settings'), ['users', 'settings']);
    assert.deepEqual(queryTerms("l'application plante qu'il"), ['application', 'plante', 'il']);
    // an elision only after no letter, digit or mark; an inner apostrophe only between letters
    assert.equal(searchableText("qu'il l'API D'accord squ'il aqu'x st'il it’s user's l'1 x'y"), "il API accord squil aqux stil its users l'1 xy");
  });

  test('a query with contractions finds no exchange through their fragments and marks none', async () => {
    assert.deepEqual(await find("I'm stuck, it isn't scrolling"), []);
    const r = await searcher.search({ text: "the cache isn't warm", mode: 'verbatim/bm25' });
    assert.equal(fx.keys.get(r.hits[0]!.exchangeId), 'contraction');
    assert.deepEqual(r.hits[0]!.matchedTerms, ['cache', 'warm']);
    assert.ok(!r.hits[0]!.snippet.includes(`${MARK_START}t${MARK_END}`), r.hits[0]!.snippet);
  });

  test('Chinese, Japanese, Korean and Thai: words are found inside unspaced text and marked', async () => {
    assert.deepEqual(await find('数据库连接'), ['zh']);
    assert.deepEqual(await find('连接池'), ['zh']);
    assert.deepEqual(await find('データベース接続'), ['ja']);
    assert.deepEqual(await find('設定'), ['ja']);
    // Korean glues particles to words: the query word without its particle matches any form
    assert.deepEqual(await find('데이터베이스를'), ['ko']);
    assert.deepEqual(await find('연결'), ['ko']);
    assert.deepEqual(await find('ฐานข้อมูล'), ['th']);
    const zh = await searcher.search({ text: '数据库', mode: 'verbatim/bm25' });
    // ICU cuts 数据库 into 数据 + 库, in the query as in the text
    assert.ok(zh.hits[0]!.snippet.includes(`${MARK_START}数据${MARK_END}${MARK_START}库${MARK_END}连接`), zh.hits[0]!.snippet);
    const ko = await searcher.search({ text: '데이터베이스가', mode: 'verbatim/bm25' });
    assert.ok(ko.hits[0]!.snippet.includes(`${MARK_START}데이터베이스에서${MARK_END}`), ko.hits[0]!.snippet);
  });

  test('Russian and Ukrainian: a word is found, marked and counted whatever its ending', async () => {
    // the memory inflects every word differently from the exchange (сама/сам, запросила/запроси, файлы/файлам)
    assert.deepEqual(await find('сама запросила файлы'), ['ru', 'uk'], 'the Ukrainian файлів is a файл too');
    assert.deepEqual(await find('диктовка'), ['ru']);
    assert.deepEqual(await find('еще'), ['ru'], 'ё is written е');
    assert.deepEqual(await find('лог помилки'), ['uk']);
    assert.deepEqual(await find('файли'), ['ru', 'uk']);
    const ru = await searcher.search({ text: 'сама запросила файлы', mode: 'verbatim/bm25' });
    assert.deepEqual(ru.hits[0]!.matchedTerms, ['сама', 'запросила', 'файлы']);
    for (const word of ['сам', 'запроси', 'файлам']) assert.ok(ru.hits[0]!.snippet.includes(`${MARK_START}${word}${MARK_END}`), ru.hits[0]!.snippet);
    const yo = await searcher.search({ text: 'еще', mode: 'verbatim/bm25' });
    assert.ok(yo.hits[0]!.snippet.includes(`${MARK_START}ещё${MARK_END}`), yo.hits[0]!.snippet);
    // a word that only begins like another is not it
    assert.deepEqual(await find('доступность'), []);
  });

  test('Latin accents: a query typed without them finds, marks and counts the accented words, and the other way round', async () => {
    const plain = await searcher.search({ text: 'codigo fuente modulo', mode: 'verbatim/bm25' });
    assert.equal(fx.keys.get(plain.hits[0]!.exchangeId), 'es');
    assert.deepEqual(plain.hits[0]!.matchedTerms, ['codigo', 'fuente', 'modulo']);
    for (const word of ['código', 'fuente', 'módulo']) assert.ok(plain.hits[0]!.snippet.includes(`${MARK_START}${word}${MARK_END}`), plain.hits[0]!.snippet);
    const accented = await searcher.search({ text: 'validación carrito', mode: 'verbatim/bm25' });
    assert.equal(fx.keys.get(accented.hits[0]!.exchangeId), 'es-plain');
    assert.deepEqual(accented.hits[0]!.matchedTerms, ['validación', 'carrito']);
    assert.ok(accented.hits[0]!.snippet.includes(`${MARK_START}validacion${MARK_END}`), accented.hits[0]!.snippet);
  });
});

test('a version 4 store is migrated: its full-text index is rebuilt from the stored verbatim, labels out', async () => {
  const file = path.join(tempDir(), 'v3.sqlite');
  const db = await Db.open(file);
  await migrate(db, 4);
  await db.exec(`
    INSERT INTO sources(id, path, agent) VALUES (1, '/t/s.jsonl', 'claude-code');
    INSERT INTO conversations(id, source_id, agent, session_id, line) VALUES ('c', 1, 'claude-code', 's', 1);
    INSERT INTO exchanges(id, conversation_id, source_id, part, ply_start, ply_end, line_start, line_end, byte_start, prompt, verbatim)
      VALUES ('e1', 'c', 1, 0, 0, 1, 1, 2, 0, '数据库超时', 'User: 数据库超时\nAssistant: raised the pool size'),
             ('e2', 'c', 1, 0, 2, 3, 3, 4, 10, 'thanks', 'User: thanks\nAssistant: welcome');`);
  // the old index holds the labels
  assert.equal((await db.all("SELECT rowid FROM exchanges_fts WHERE exchanges_fts MATCH 'assistant'")).length, 2);
  await db.close();
  const store = await Store.open(file);
  try {
    const searcher = createSearcher(new SearchReads(store));
    const ids = async (text: string) => (await searcher.search({ text })).hits.map((h) => h.exchangeId);
    assert.deepEqual(await ids('assistant'), []);
    assert.deepEqual(await ids('数据库'), ['e1']);
    assert.deepEqual(await ids('welcome'), ['e2']);
    assert.deepEqual(await store.check(), { ok: true, problems: [] });
    // deleting an exchange deletes its row (trigger)
    await store.db.run("DELETE FROM exchanges WHERE id = 'e2'");
    assert.deepEqual(await ids('welcome'), []);
    assert.deepEqual(await store.check(), { ok: true, problems: [] });
  } finally {
    await store.close();
  }
});
