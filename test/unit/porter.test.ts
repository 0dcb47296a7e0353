import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isEnglishWord, porterStem, stemStart } from '../../src/core/porter';
import { Db } from '../../src/core/store/db';

/** Words that exercise each of porter's steps, the ones a crude suffix rule gets wrong among them. */
const WORDS = [
  'speed', 'speeds', 'specific', 'lines', 'line', 'linux', 'apply', 'applied', 'application', 'tests', 'testing',
  'testament', 'hoping', 'hope', 'happy', 'happiness', 'capability', 'capable', 'relational', 'conditional',
  'generalization', 'general', 'generate', 'rational', 'valenci', 'digitizer', 'sensibility', 'formaliti',
  'electrical', 'hopeful', 'goodness', 'revival', 'allowance', 'inference', 'airliner', 'adjustable',
  'defensible', 'irritant', 'replacement', 'adjustment', 'dependent', 'adoption', 'homologou', 'communism',
  'activate', 'angulariti', 'homologous', 'effective', 'bowdlerize', 'probate', 'rate', 'cease', 'controll',
  'roll', 'filing', 'failing', 'sized', 'hissing', 'fizzed', 'ids', 'id', 'embed', 'embedding', 'proceed',
  'exceed', 'ponies', 'caresses', 'cats', 'feed', 'agreed', 'plastered', 'motoring', 'sing', 'conflated',
  'troubled', 'sky', 'h264', 'v2', 'utf8', 'x',
];

test("porterStem gives FTS5's own porter stems (asked of a real FTS5 table)", async () => {
  const db = await Db.open(':memory:');
  try {
    await db.exec(`CREATE VIRTUAL TABLE t USING fts5(w, tokenize='porter unicode61'); CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance');`);
    for (const [i, w] of WORDS.entries()) await db.run('INSERT INTO t(rowid, w) VALUES (?, ?)', [i + 1, w]);
    const fts5 = await db.all<{ doc: number; term: string }>('SELECT doc, term FROM v ORDER BY doc');
    assert.equal(fts5.length, WORDS.length);
    for (const { doc, term } of fts5) assert.equal(porterStem(WORDS[doc - 1]!), term, WORDS[doc - 1]);
  } finally {
    await db.close();
  }
});

test('every word with a stem begins with its stemStart, so indexOf finds them all', () => {
  for (const w of WORDS) assert.ok(w.startsWith(stemStart(porterStem(w))), `${w} -> ${porterStem(w)} -> ${stemStart(porterStem(w))}`);
  assert.equal(stemStart('happi'), 'happ');
  assert.equal(stemStart('capabl'), 'capab');
  assert.equal(stemStart('hope'), 'hop');
});

test('FTS5 stems lower-case English words only: not accented, other scripts or prefix terms', () => {
  for (const w of ['speed', 'h264', 'x']) assert.ok(isEnglishWord(w), w);
  for (const w of ['código', 'ошибка', '数据库', '데이터*', 'Speed', '']) assert.ok(!isEnglishWord(w), w);
});
