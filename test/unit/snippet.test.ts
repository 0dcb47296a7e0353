import assert from 'node:assert/strict';
import { test } from 'node:test';
import { makeSnippet, MARK_END, MARK_START } from '../../src/core/search/snippet';

/** The snippet with its marks as [brackets], to read the assertions at a glance. */
const shown = (text: string, terms: string[], maxChars?: number) => {
  const s = makeSnippet(text, terms, maxChars);
  return { text: s.text.replaceAll(MARK_START, '[').replaceAll(MARK_END, ']'), matchedTerms: s.matchedTerms };
};

test('marks every word that begins with a term stem, whatever its case', () => {
  const s = shown('Testing the Tests: a test of CONTESTS and tested code.', ['tests']);
  assert.equal(s.text, '[Testing] the [Tests]: a [test] of CONTESTS and [tested] code.');
  assert.deepEqual(s.matchedTerms, ['tests']);
});

test('short terms mark whole words only', () => {
  const s = shown('the id is in idle ids; id.', ['id']);
  assert.equal(s.text, 'the [id] is in idle ids; [id].');
});

test('a word two terms begin is marked once', () => {
  const s = shown('the service served', ['serv', 'service']);
  assert.equal(s.text, 'the [service] [served]');
  assert.deepEqual(s.matchedTerms, ['serv'], 'service marks as serv, the first term that begins it');
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
