import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { foldAccents } from '../../src/core/accents';
import { FoundPlaces } from '../../src/core/search/foundPlaces';
import { firstCharacters, PROXIMITY_CHARS, PROXIMITY_WINDOW, pairsNear, proximityForm, withProximity, wordBase } from '../../src/core/search/proximity';
import { createSearcher } from '../../src/core/search/searcher';
import type { Searcher } from '../../src/core/search/types';
import { Db } from '../../src/core/store/db';
import { type Fixture, type FixtureConversation, openFixture } from './searchFixture';

const words = (n: number, word = 'filler') => Array.from({ length: n }, () => word).join(' ');

describe('proximity: neighbouring query words standing together', () => {
  test('a pair is near with at most PROXIMITY_WINDOW words between, in either order', () => {
    assert.deepEqual([...pairsNear(`squash ${words(PROXIMITY_WINDOW)} branch`, ['squash', 'branch'])], [0]);
    assert.deepEqual([...pairsNear(`branch ${words(PROXIMITY_WINDOW)} squash`, ['squash', 'branch'])], [0]);
    assert.deepEqual([...pairsNear(`squash ${words(PROXIMITY_WINDOW + 1)} branch`, ['squash', 'branch'])], []);
  });

  test('only neighbouring query words make pairs, each counted once', () => {
    const found = pairsNear(`Squash the refactor branch. Later: squash again; ${words(10)} gone.`, ['squash', 'refactor', 'branch', 'gone']);
    assert.deepEqual([...found].sort(), [0, 1]); // squash~refactor, refactor~branch; branch~gone is far
  });

  test('word forms match (codes, coded, code), other words beginning alike do not (codex)', () => {
    assert.equal(wordBase('codes'), wordBase('code'));
    assert.equal(wordBase('rewriting'), wordBase('rewrite'));
    assert.deepEqual([...pairsNear('the coded message', ['code', 'message'])], [0]);
    assert.deepEqual([...pairsNear('the codex message', ['code', 'message'])], []);
    assert.deepEqual([...pairsNear('the code message', ['codes', 'code'])], [], 'one word twice is not a pair');
  });

  test('Cyrillic word forms match by their stem (файлам, файлы), other words beginning alike do not', () => {
    assert.deepEqual([...pairsNear('сам запроси доступ к файлам', ['запросила', 'файлы'])], [0]);
    assert.deepEqual([...pairsNear('сам запроси доступность к файлам', ['доступ', 'файлы'])], []);
  });

  test('accents are folded as the index folds them: a query typed without them pairs accented words, and the other way round', () => {
    assert.deepEqual([...pairsNear('Revisé el Código fuente del módulo', ['codigo', 'fuente'])], [0]);
    assert.deepEqual([...pairsNear('revise el codigo fuente del modulo', ['código', 'módulo'])], [0]);
    assert.deepEqual([...pairsNear('die Größe der Übersetzung', ['grosse', 'ubersetzung'])], [], 'ß is not ss: the index keeps it');
    assert.deepEqual([...pairsNear('die Größe der Übersetzung', ['große', 'ubersetzung'])], [0]);
    // Cyrillic letters keep their marks (й is a letter of its own there), and the form keeps the text's length
    assert.equal(foldAccents('мой ёж café'), 'мой ёж cafe');
    assert.equal(proximityForm('Ça résiste à l’élan').length, 'Ça résiste à l’élan'.length);
  });

  test('role labels are not words', () => {
    assert.deepEqual([...pairsNear('User: fix it\nAssistant: the profile page', ['user', 'profile'])], []);
    assert.deepEqual([...pairsNear('User: the user profile', ['user', 'profile'])], [0]);
  });

  test('a word inside another word is not that word (prefix in the middle of a word)', () => {
    assert.deepEqual([...pairsNear('unsquash rebranch', ['squash', 'branch'])], []);
  });

  test('words between are counted in any script: accents, Cyrillic, letters beyond the BMP, digits; punctuation is not a word', () => {
    const mixed = ['café', 'déjà-vu', 'ошибка', '𝐀𝐁𝐂', 'v2', '42', 'naïve', 'x'];
    assert.equal(mixed.join(' ').split(/[^\p{L}\p{N}\p{M}]+/u).filter(Boolean).length, PROXIMITY_WINDOW + 1);
    assert.deepEqual([...pairsNear(`squash ${mixed.slice(1).join(' ')} branch`, ['squash', 'branch'])], [0]);
    assert.deepEqual([...pairsNear(`squash ${mixed.join(' ')} branch`, ['squash', 'branch'])], []);
    assert.deepEqual([...pairsNear(`squash — ${'... !!! '.repeat(20)} branch`, ['squash', 'branch'])], [0]);
    // a word runs on through letters of any script: "squashø" is not "squash" (ø has no accent to fold)
    assert.deepEqual([...pairsNear('squashø branch', ['squash', 'branch'])], []);
    assert.deepEqual([...pairsNear('squash·branch', ['squash', 'branch'])], [0]);
  });

  test("texts' places found by an earlier search rank the next ones as looking again does", async () => {
    const forms = ['User: squash the branch', `Assistant: the branch ${words(10)} squashed, rebased`, 'rebase the squashed branch'].map(proximityForm);
    const kept = forms.map(() => new FoundPlaces());
    const hits = forms.map((_, n) => ({ n, score: 3 - n }));
    const idf = new Map([['squash', 2], ['branch', 1], ['rebase', 5], ['user', 0.5]]);
    const ranked = (places: (n: number) => FoundPlaces, terms: string[]) =>
      withProximity(async (ns) => new Map(ns.map((n) => [n, { form: forms[n]!, places: places(n) }])), terms, idf, hits);
    for (const terms of [['squash', 'branch'], ['branch', 'rebase', 'squash'], ['squash', 'branch'], ['user', 'squash']]) {
      assert.deepEqual(await ranked((n) => kept[n]!, terms), await ranked(() => new FoundPlaces(), terms), terms.join(' '));
    }
    // only the last says "rebase" and "branch" together: raised by their mean IDF, 3, above the others
    assert.deepEqual(await ranked((n) => kept[n]!, ['branch', 'rebase']), [{ n: 2, score: 4 }, hits[0], hits[1]]);
  });
});

/**
 * `scattered` holds each query word twice, far apart: BM25 alone ranks it first. `together` says the query
 * once, its words side by side. Other exchanges make the words rare.
 */
const CONVERSATIONS: readonly FixtureConversation[] = [
  {
    file: 'scattered.jsonl',
    agent: 'claude-code',
    project: '/p/x',
    exchanges: [
      {
        key: 'scattered',
        text: `User: squash ${words(12)} refactor ${words(12)} branch ${words(12)} squash\nAssistant: refactor ${words(12)} branch.`,
        startedAt: '2025-01-01T00:00:00Z',
      },
    ],
  },
  {
    file: 'together.jsonl',
    agent: 'claude-code',
    project: '/p/x',
    exchanges: [
      { key: 'together', text: `User: squash the refactor branch into one commit\nAssistant: ${words(40)} done.`, startedAt: '2025-01-02T00:00:00Z' },
    ],
  },
  {
    file: 'others.jsonl',
    agent: 'codex',
    project: '/p/x',
    exchanges: ['deploy the site', 'fix the login page', 'write release notes', 'update the lock file'].map((t, i) => ({
      key: `other${i}`,
      text: `User: ${t}\nAssistant: ${words(20)} done.`,
      startedAt: `2025-02-0${i + 1}T00:00:00Z`,
    })),
  },
];

describe('proximity in the default search', () => {
  let fx: Fixture;
  let searcher: Searcher;
  before(async () => {
    fx = await openFixture(CONVERSATIONS);
    searcher = createSearcher(fx.reads);
  });
  after(() => fx?.store.close());

  test('the exchange saying the query words together ranks above the one scattering them', async () => {
    const r = await searcher.search({ text: 'squash refactor branch' });
    assert.deepEqual(r.hits.map((h) => fx.keys.get(h.exchangeId)), ['together', 'scattered']);
  });

  test('a one-word query is BM25 alone', async () => {
    const r = await searcher.search({ text: 'squash' });
    assert.deepEqual(r.hits.map((h) => fx.keys.get(h.exchangeId)), ['scattered', 'together']);
  });
});

describe('proximity reads the whole hit rows and cuts them as SQLite did', () => {
  test('firstCharacters cuts where substr(text, 1, n) does: characters, not UTF-16 code units', async () => {
    const db = await Db.open(':memory:');
    try {
      const texts = ['plain ascii text', '😀'.repeat(12), `a😀b${'é'.repeat(5)}😀😀c`, '漢字かな😀カナ', '😀', ''];
      for (const text of texts) {
        for (const n of [0, 1, 2, 3, 5, 8, 11, 40]) {
          const sql = (await db.get<{ s: string }>('SELECT substr(?, 1, ?) AS s', [text, n]))!.s;
          assert.equal(firstCharacters(text, n), sql, `${JSON.stringify(text)}, ${n}`);
        }
      }
    } finally {
      await db.close();
    }
  });

  test('a pair after many emoji (more code units than PROXIMITY_CHARS, fewer characters) still counts', async () => {
    // the fixture above with its prompts after 0.6 * PROXIMITY_CHARS emoji (each one character, two code units)
    const emoji = '😀'.repeat(Math.floor(0.6 * PROXIMITY_CHARS));
    const fx = await openFixture(CONVERSATIONS.map((c) => ({ ...c, exchanges: c.exchanges.map((e) => ({ ...e, text: e.text.replace('User: ', `User: ${emoji} `) })) })));
    try {
      const r = await createSearcher(fx.reads).search({ text: 'squash refactor branch' });
      assert.deepEqual(r.hits.map((h) => fx.keys.get(h.exchangeId)), ['together', 'scattered']);
    } finally {
      await fx.store.close();
    }
  });
});
