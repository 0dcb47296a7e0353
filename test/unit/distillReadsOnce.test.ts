import assert from 'node:assert/strict';
import { test } from 'node:test';
import { exchangeWords } from '../../src/core/distill/exchangeWords';
import { type ProseSentence, proseSentences } from '../../src/core/distill/prose';
import { keepBest, TERMS_MAX_TOKENS } from '../../src/core/distill/searchTerms';
import { splitVerbatim } from '../../src/core/distill/verbatimParts';

// The offline distiller reads an exchange's text once where it read it twice (issue 41): these pin that what it reads
// now is what it read before.

const ANSWER = [
  '## Summary',
  'I traced the stall to the retry loop in the session middleware.',
  'Would you like me to add a test?',
  'The cache now expires after five minutes. The old entries are gone.',
  'Here are the changes:',
  '- `src/session.ts`: the loop waits between tries',
  '- `src/cache.ts`: entries expire',
  '',
  '**Verified**',
  'Every test passes on the branch now. The build is green too.',
  'Nothing else was touched in this change.',
].join('\n');

test('proseSentences with `wanted`: the first sentences of the whole text, up to the wanted ones, lists included', () => {
  const all = proseSentences(ANSWER);
  const statement = (s: ProseSentence): boolean => !s.heading && !s.text.endsWith('?');
  for (let wanted = 1; wanted <= 8; wanted++) {
    for (const counted of [undefined, statement]) {
      const some = proseSentences(ANSWER, wanted, counted);
      // a prefix of the whole text's sentences, the last one with its list as the whole text gave it
      assert.deepEqual(some, all.slice(0, some.length));
      const kept = some.filter(counted ?? (() => true));
      const allKept = all.filter(counted ?? (() => true));
      assert.deepEqual(kept.slice(0, wanted), allKept.slice(0, wanted));
    }
  }
  // the lines after the one that gives the last wanted sentence are not read
  assert.ok(proseSentences(ANSWER, 1).length < all.length);
  assert.ok(all.some((s) => s.list !== undefined) && proseSentences(ANSWER, 4, statement).some((s) => s.list?.length === 2));
});

test("exchangeWords: the prompt's and the assistant's words counted once for the headline and the search terms", () => {
  const parts = splitVerbatim(
    [
      'User: why does gl_screen flood the log',
      'Assistant: gl_screen polls every second.',
      '[tool] Bash logread | grep gl_screen',
      '[error] gl_screen: connection refused',
    ].join('\n'),
  );
  const counted = exchangeWords('why does gl_screen flood the log', parts);
  // prompt 1 + assistant 1; the call's words with its tool name for the headline, without it (and the error's) for the search terms
  assert.deepEqual(counted.get('gl_screen'), { said: 2, inCalls: 1, inErrorsAndArgs: 2, human: true, weight: 0 });
  assert.deepEqual(counted.get('bash'), { said: 0, inCalls: 1, inErrorsAndArgs: 0, human: false, weight: 0 });
  assert.deepEqual(counted.get('polls'), { said: 1, inCalls: 0, inErrorsAndArgs: 0, human: false, weight: 0 });
  assert.deepEqual(counted.get('refused'), { said: 0, inCalls: 0, inErrorsAndArgs: 1, human: false, weight: 0 });
});

test('keepBest: the first terms of a sort of every term by weight, then by word, as they come', () => {
  let seed = 41;
  const random = (): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  for (let round = 0; round < 200; round++) {
    const n = Math.floor(random() * 80);
    // few distinct weights: ties are ordered by the word
    const terms = Array.from({ length: n }, (_, i) => ({ w: `w${Math.floor(random() * 1000)}_${i}`, weight: 1 + Math.floor(random() * 6) / 2 }));
    const best: string[] = [];
    const weights: number[] = [];
    for (const t of terms) keepBest(best, weights, t.w, t.weight);
    const sorted = [...terms].sort((a, b) => b.weight - a.weight || (a.w < b.w ? -1 : 1)).map((t) => t.w);
    assert.deepEqual(best, sorted.slice(0, TERMS_MAX_TOKENS + 1));
  }
});
