import assert from 'node:assert/strict';
import { test } from 'node:test';
import { blankBetween, endsSentence, joinedBetween } from '../../src/core/distill/gaps';
import { phraseConceptKey, normaliseKey } from '../../src/core/roomKey';
import { seededText } from './helpers';

/** The patterns gaps.ts reads in place, as offlineRooms.ts tested them on the slice before. */
const BLANK_RE = /^[ \t]+$/;
const JOINED_RE = /^(?:[ \t]+|[-‐‑])$/;
const ENDS_RE = /[.!?:\n][^\p{L}\p{N}]*$/u;

/** Characters of every kind the gaps tell apart: ASCII, other scripts' letters and digits, astral letters and digits, lone surrogates. */
const CHARS = [' ', '\t', '\n', '.', '!', '?', ':', ',', '-', '‐', '‑', '—', '_', '(', '"', 'a', 'Z', '0', '9', 'é', 'ж', '٣', '…', '★', '\u0301', '𝑥', '𝟎', '😀', '\ud835', '\udc65'];

const randomText = (seed: number, length: number): string => seededText(CHARS, seed, length);

test('the gaps read in place answer as their patterns do on the slice, for every range of varied texts', () => {
  for (let seed = 1; seed <= 60; seed++) {
    const text = randomText(seed, 14);
    for (let from = 0; from <= text.length; from++) {
      for (let to = from; to <= text.length; to++) {
        const gap = text.slice(from, to);
        const where = `${JSON.stringify(text)} [${from}, ${to})`;
        assert.equal(blankBetween(text, from, to), BLANK_RE.test(gap), `blank ${where}`);
        assert.equal(joinedBetween(text, from, to), JOINED_RE.test(gap), `joined ${where}`);
        assert.equal(endsSentence(text, from, to), ENDS_RE.test(gap), `ends ${where}`);
      }
    }
  }
});

test('a sentence ends before a word unless a letter or digit of any script follows its mark, astral ones included', () => {
  assert.equal(endsSentence('done. Next', 4, 6), true);
  assert.equal(endsSentence('v1.2 next', 2, 5), false);
  assert.equal(endsSentence('end: 𝟎 next', 3, 8), false);
  assert.equal(endsSentence('end: 😀 next', 3, 8), true);
});

test("a phrase's key from its words' keys is the key of the phrase written whole", () => {
  const words = ['rate', 'Rate', 'limiting', 'limits', 'Limit', 'full-text', 'retry_timeout', 'Services', 'cache', 'caching', 'test', 'tests', 'of', 'de', 'De', 'DE', 'p5Instance', 'E2E', 'APIs', 'Markdown', 'v2', 'ошибка', 'café'];
  for (const a of words) {
    for (const b of words) {
      const whole = normaliseKey('concept', `${a} ${b}`);
      const key = phraseConceptKey(a, b);
      if (key !== undefined) assert.equal(key, whole, `${a} ${b}`);
      for (const via of ['of', 'de', 'De', 'DE']) {
        const joined = phraseConceptKey(a, b, via);
        if (joined !== undefined) assert.equal(joined, normaliseKey('concept', `${a} ${via} ${b}`), `${a} ${via} ${b}`);
      }
    }
  }
  // plain words are keyed so; a word that is not plain leaves the phrase to be keyed whole
  assert.equal(phraseConceptKey('rate', 'limiting'), 'limit_rate');
  assert.equal(phraseConceptKey('tests', 'test'), 'test');
  assert.equal(phraseConceptKey('p5Instance', 'setup'), undefined);
  assert.equal(phraseConceptKey('rate', 'limit', 'DE'), undefined);
});
