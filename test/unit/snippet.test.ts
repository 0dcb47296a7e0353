import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FoundPlaces } from '../../src/core/search/foundPlaces';
import { holdsQueryWord, makeSnippet, MARK_END, MARK_START } from '../../src/core/search/snippet';

/** The snippet with its marks as [brackets], to read the assertions at a glance. */
const shown = (text: string, terms: string[], maxChars?: number) => {
  const s = makeSnippet(text, terms, maxChars);
  return { text: s.text.replaceAll(MARK_START, '[').replaceAll(MARK_END, ']'), matchedTerms: s.matchedTerms };
};

test('marks every form of a term the index matched, whatever its case, not a word holding it', () => {
  const s = shown('Testing the Tests: a test of CONTESTS and tested code.', ['tests']);
  assert.equal(s.text, '[Testing] the [Tests]: a [test] of CONTESTS and [tested] code.');
  assert.deepEqual(s.matchedTerms, ['tests']);
});

test('short terms mark their own forms only, never the words they begin', () => {
  assert.equal(shown('the id is in idle ids; id.', ['id']).text, 'the [id] is in idle [ids]; [id].');
  assert.equal(shown('на наш нас', ['на']).text, '[на] наш нас', "another language's short word: whole words only");
});

test('a word two terms find is marked once', () => {
  const s = shown('en søgningen', ['søg', 'søgning']);
  assert.equal(s.text, 'en [søgningen]');
  assert.deepEqual(s.matchedTerms, ['søg'], 'søgningen marks as søg, the first term that begins it');
  // two forms of one English word are one word: both found
  assert.deepEqual(shown('generalizations in general', ['general', 'generalization']), {
    text: '[generalizations] in [general]',
    matchedTerms: ['general', 'generalization'],
  });
});

test("the words' first matches in text order are what a snippet looks at, whichever words they are", () => {
  // 400 matches of two words, taking turns: the first 300 (MAX_MATCHES) are 150 of each, and a third word after them
  // is not among them, while before them it is
  const turns = 'alpha beta '.repeat(200);
  assert.deepEqual(makeSnippet(`${turns}gamma`, ['alpha', 'beta', 'gamma']).matchedTerms, ['alpha', 'beta']);
  assert.deepEqual(makeSnippet(`gamma ${turns}`, ['alpha', 'beta', 'gamma']).matchedTerms, ['alpha', 'beta', 'gamma']);
  // one word's 300 matches first, the other's after them: the other is not among the first 300
  assert.deepEqual(makeSnippet(`${'alpha '.repeat(300)}${'beta '.repeat(5)}`, ['beta', 'alpha']).matchedTerms, ['alpha']);
});

test('an English word marks the words FTS5 matched it with, not every word its stem begins', () => {
  // crude stems (spe, lin, app) begin specific, linux and application
  const s = shown('The speeds of specific linux lines: we applied it to the application', ['speed', 'lines', 'apply']);
  assert.equal(s.text, 'The [speeds] of specific linux [lines]: we [applied] it to the application');
  // and porter's stem can end other than the word (hoping -> hope, happy -> happi, capability -> capabl)
  assert.equal(shown('hoping, happiness, capable', ['hope', 'happy', 'capability']).text, '[hoping], [happiness], [capable]');
  assert.deepEqual(shown('a special spec', ['speed']), { text: 'a special spec', matchedTerms: [] }, 'no word of the query, none claimed');
  assert.equal(shown('one line, two lines', ['lines']).text, 'one [line], two [lines]');
  // another language's word, or a prefix, still marks the words it begins
  assert.equal(shown('los códigos', ['código']).text, 'los [códigos]');
  assert.equal(shown('데이터베이스에서 데이터', ['데이터*']).text, '[데이터베이스에서] [데이터]');
});

test('offsets stay right around characters whose lower case is longer (İ) and beyond the BMP', () => {
  const s = shown('İstanbul 𝒳config then config', ['config']);
  assert.equal(s.text, 'İstanbul 𝒳config then [config]', 'a letter outside the BMP before a stem is part of the word');
  assert.equal(shown('İİ deploy', ['deploy']).text, 'İİ [deploy]');
});

test('the excerpt is the window with the most distinct terms, then the most matches', () => {
  const filler = 'lorem ipsum '.repeat(40);
  const text = `alpha alpha alpha ${filler} alpha beta gamma ${filler} end`;
  const s = shown(text, ['alpha', 'beta', 'gamma'], 60);
  assert.ok(s.text.startsWith('…'), s.text);
  assert.ok(s.text.includes('[alpha] [beta] [gamma]'), s.text);
  assert.ok(s.text.endsWith('…'));
});

test('no match: the start of the text, unmarked; marks inside the text are neutralised', () => {
  assert.deepEqual(shown('nothing \u0001here\u0002', ['zebra']), { text: 'nothing here', matchedTerms: [] });
  assert.deepEqual(shown('short', []), { text: 'short', matchedTerms: [] });
});

test('an excerpt reads as text: no role labels, emphasis or fence markers, the matches still marked', () => {
  const verbatim = 'User: why does the docker build fail?\nAssistant: **Analyzing the docker build**\n```yaml\nbuild: .\n```\n[tool] Bash docker build .\n[result] ok';
  const s = makeSnippet(verbatim, ['docker']);
  assert.doesNotMatch(s.text, /User:|Assistant:|\[tool\]|\[result\]|\*\*|```/, s.text);
  assert.equal(s.text.split(MARK_START).length - 1, 3, s.text);
  assert.match(s.text, new RegExp(`${MARK_START}docker${MARK_END} build fail\\? Analyzing the ${MARK_START}docker${MARK_END}`));
  // a label-like word in the middle of a line is what someone said
  assert.match(makeSnippet('we asked the User: nobody answered about docker', ['docker']).text, /the User: nobody/);
});

test('accents are folded as the index folds them: the accented word is marked for a query without accents, and the other way round', () => {
  const plain = makeSnippet('Revisé el Código fuente del módulo de pagos', ['codigo', 'modulo']);
  assert.equal(plain.text, `Revisé el ${MARK_START}Código${MARK_END} fuente del ${MARK_START}módulo${MARK_END} de pagos`);
  assert.deepEqual(plain.matchedTerms, ['codigo', 'modulo']);
  const accented = makeSnippet('revise el codigo fuente', ['código', 'revisé']);
  assert.equal(accented.text, `${MARK_START}revise${MARK_END} el ${MARK_START}codigo${MARK_END} fuente`);
  assert.ok(holdsQueryWord('el código del módulo', ['codigo']));
});

test('a text holds a query word when the snippet would mark one, whichever word it is', () => {
  const text = 'User: the gearbox rattles at speed\nAssistant: tightened the mount.';
  for (const terms of [['gearbox'], ['zeppelin', 'mount'], ['rattled', 'zeppelin'], ['zeppelin', 'airship', 'speeds']]) {
    assert.equal(holdsQueryWord(text, terms), makeSnippet(text, terms).matchedTerms.length > 0, terms.join(' '));
    assert.ok(holdsQueryWord(text, terms), terms.join(' '));
  }
  assert.equal(holdsQueryWord(text, ['zeppelin', 'gear', 'user']), false, 'not inside a word, nor a role label');
  assert.equal(holdsQueryWord(`${MARK_START}${MARK_END}`, ['zeppelin']), false);
});

test("a text's found places make the same snippets as looking again, for the same words and others", () => {
  const text = 'User: Testing the parser.\nAssistant: the parser tests pass; Parsing ИСТОРИЯ of tests, 测试 parsed. '.repeat(8);
  const places = new FoundPlaces();
  for (const terms of [['tests', 'parser'], ['parser', 'история'], ['tests', 'parser'], ['测试', 'user', 'parse*']]) {
    assert.deepEqual(makeSnippet(text, terms, undefined, places), makeSnippet(text, terms), terms.join(' '));
  }
  const numbers = places.numbers;
  assert.ok(numbers > 0);
  makeSnippet(text, ['parser', 'tests'], undefined, places);
  assert.equal(places.numbers, numbers, 'words looked for before are not looked for again');
});
