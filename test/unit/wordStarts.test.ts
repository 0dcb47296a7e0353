import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pairsIn, proximityForm, withWordStarts } from '../../src/core/search/proximity';
import { makeSnippet, snippetText, withSnippetStarts } from '../../src/core/search/snippet';
import { queryTerms } from '../../src/core/search/terms';
import { findable, WordStarts } from '../../src/core/search/wordStarts';
import { isWordCharBefore, isWordUnit } from '../../src/core/words';

/**
 * Words where the two ways of finding a query word (indexOf over the whole text, or where the text's words begin)
 * could part: forms of one word and words that begin alike, case, accents and marks, Cyrillic, unspaced scripts,
 * letters beyond the BMP and emoji, İ (longer in lower case), role labels, match marks, punctuation glued on.
 */
const VOCABULARY = [
  'squash', 'Squashed', 'unsquash', 'branch', 'BRANCHES', 'rebranch', 'code', 'codes', 'coded', 'codex', 'Coding',
  'test', 'tests', 'testing', 'contest', 'id', 'ids', 'idle', 'go', 'x', 'café', 'cafe\u0301', 'déjà-vu', 'ошибка',
  'Ошибки', 'на', 'наш', '缓存', 'Redis缓存', '데이터베이스를', '𝐀𝐁𝐂', 'a𝐀b', '𝐀test', '🙂', 'test🙂', 'İstanbul',
  'İD', 'ΟΔΟΣ', 'σ', 'v2', '42', 'naïve', 'user', 'User:', '\nUser: ', '\nAssistant: ', '\n[tool] ', '\u0001', 'te\u0002st',
  '·', '—', '...', '\n', '```ts', '**bold**', 'squash·branch', 'x_y', "user's", 'a', 'the',
];

/** A deterministic generator (mulberry32), so a failure names a text that can be made again. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function cases(count: number): Array<{ text: string; terms: string[] }> {
  const next = random(42);
  const pick = () => VOCABULARY[Math.floor(next() * VOCABULARY.length)]!;
  const out: Array<{ text: string; terms: string[] }> = [];
  for (let c = 0; c < count; c++) {
    const words = Array.from({ length: 5 + Math.floor(next() * 120) }, pick);
    const glue = () => (next() < 0.8 ? ' ' : next() < 0.5 ? '' : ', ');
    const text = words.map((w) => w + glue()).join('');
    const terms = queryTerms(Array.from({ length: 1 + Math.floor(next() * 5) }, pick).join(' '));
    out.push({ text, terms });
  }
  return out;
}

test('word starts are where each rule says a word begins: after a non-word unit, or after a non-word character', () => {
  for (const { text } of cases(200)) {
    const lower = text.toLowerCase();
    for (const rule of ['unit', 'character'] as const) {
      const starts = WordStarts.of(lower, rule);
      const expected: number[] = [];
      for (let i = 0; i < lower.length; i++) {
        const begins = rule === 'unit' ? i === 0 || !isWordUnit(lower, i - 1) : !isWordCharBefore(lower, i);
        if (isWordUnit(lower, i) && begins) expected.push(i);
      }
      const found: number[] = [];
      for (const at of new Set(expected.map((i) => lower.slice(i, i + 2))).values()) {
        if (!findable(at)) continue;
        for (let k = starts.first(at); k >= 0; k = starts.next(k)) if (lower.startsWith(at, starts.at(k))) found.push(starts.at(k));
      }
      const findableStarts = expected.filter((i) => findable(lower.slice(i, i + 2)));
      assert.deepEqual(found.sort((a, b) => a - b), findableStarts, `${rule}: ${JSON.stringify(text)}`);
    }
  }
});

test('proximity finds the same pairs through word starts as by scanning the whole form', () => {
  let pairs = 0;
  for (const { text, terms } of cases(400)) {
    const form = { form: proximityForm(text) };
    const scanned = pairsIn(form, terms);
    pairs += scanned.size;
    assert.deepEqual([...pairsIn(withWordStarts(form), terms)], [...scanned], `${JSON.stringify(terms)} in ${JSON.stringify(text)}`);
  }
  assert.ok(pairs > 50, `the cases hold pairs to find (${pairs})`);
});

test('a snippet marks the same words through word starts as by scanning the whole text', () => {
  let marked = 0;
  for (const { text, terms } of cases(400)) {
    const scanned = makeSnippet(text, terms);
    marked += scanned.matchedTerms.length;
    assert.deepEqual(makeSnippet(text, terms, undefined, withSnippetStarts(snippetText(text))), scanned, `${JSON.stringify(terms)} in ${JSON.stringify(text)}`);
  }
  assert.ok(marked > 100, `the cases hold words to mark (${marked})`);
});
