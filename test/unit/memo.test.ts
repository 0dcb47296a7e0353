import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { WordRarity } from '../../src/core/distill/wordRarity';
import { detached, memoize } from '../../src/core/memo';
import { countTokens } from '../../src/core/tokens';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** i written in letters, so each word is one run of letters (one token-counter piece). */
const letters = (i: number): string => [...String(i)].map((d) => String.fromCharCode(97 + Number(d))).join('');

/**
 * How much the heap grew (MB) once `keep` was given one word cut from each of 300 transcripts of ~100 KB and the
 * transcripts were dropped: a memory that keeps a view of each word keeps its transcript (~30 MB).
 */
function heapKeptBy(keep: (word: string) => void): number {
  gc();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < 300; i++) {
    const transcript = `${'filler words of a long transcript '.repeat(3000)} distinctive${letters(i)}suffix ${i}`;
    keep(/distinctive[a-z]+/.exec(transcript)![0]);
  }
  gc();
  return (process.memoryUsage().heapUsed - before) / 2 ** 20;
}

test('a memoized function keeps the words it was asked, not the transcripts they were cut from', () => {
  const remember = memoize((word: string) => word.slice(0, 20), 1000);
  const kept: string[] = [];
  const mb = heapKeptBy((word) => kept.push(remember(word)));
  assert.ok(mb < 5, `${mb.toFixed(1)} MB kept`);
  assert.equal(kept[12], `distinctive${letters(12)}suffix`.slice(0, 20));
});

test('the token counter remembers pieces, not the texts they were cut from', () => {
  countTokens('its table loaded first');
  const counts: number[] = [];
  const mb = heapKeptBy((word) => counts.push(countTokens(word)));
  assert.ok(mb < 5, `${mb.toFixed(1)} MB kept`);
  assert.ok(counts.every((n) => n > 1));
});

test("word rarity's idf remembers words, not the texts they were cut from", () => {
  const rarity = new WordRarity(new Map([['distinctive', 5000]]));
  const idfs: number[] = [];
  const mb = heapKeptBy((word) => idfs.push(rarity.idf(word)));
  assert.ok(mb < 5, `${mb.toFixed(1)} MB kept`);
  assert.ok(idfs.every((v) => v === idfs[0] && v > 1), 'a word the list lacks: the same idf for each');
});

test('detached: the same text', () => {
  for (const text of ['', 'short', 'a longer text than thirteen characters']) assert.equal(detached(text), text);
});
