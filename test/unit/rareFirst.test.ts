import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RareFirst } from '../../src/core/rareFirst';

/** Every place `find` finds in `text`, one after another as the scans look (from the last place + 1). */
function places(text: string, find: (text: string, from: number) => number): number[] {
  const out: number[] = [];
  for (let i = find(text, 0); i >= 0 && out.length < 10_000; i = find(text, i + 1)) out.push(i);
  return out;
}

/** Texts and words of every class of code unit: ASCII of each rank, capitals, İ and Σ, Cyrillic, CJK, surrogates. */
const PALETTE = ['e', 't', 's', 'q', 'z', '1', '9', 'x', ' ', '\n', "'", '_', 'E', 'Q', 'İ', 'i̇', 'Σ', 'σ', 'ς', 'é', 'ж', 'ё', '漢', '🙂', '\ud83d', '\ude00', '\u0301'];

function randomStrings(count: number, maxLength: number, seed: number): string[] {
  const next = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
  return Array.from({ length: count }, () => {
    let t = '';
    for (let k = next() % maxLength; k > 0; k--) t += PALETTE[next() % PALETTE.length];
    return t;
  });
}

test('a word is found where indexOf finds it, each place in turn, in texts and words of every kind of character', () => {
  const texts = ['', ' ', 'squash the refactor branch', 'sQuAsH squash squashed qsquash', ...randomStrings(400, 60, 7)];
  const words = ['e', 'q', 'ee', 'squash', 'branch', 'refactor', 'test', 'zq', 'eq', '漢字', 'ж', 'i̇s', 'σς', '🙂', '\ude00', "'s", ...randomStrings(200, 5, 13).filter((w) => w !== '')];
  for (const word of words) {
    const find = new RareFirst(word);
    for (const text of texts) {
      assert.deepEqual(places(text, (t, from) => find.in(t, from)), places(text, (t, from) => t.indexOf(word, from)), JSON.stringify([word, text]));
    }
  }
});

test('from a place before the text, inside it, at and past its end, as indexOf', () => {
  const text = 'quiz the squash quiz';
  for (const word of ['quiz', 'squash', 'uash', 'the', 'z', 'q', '']) {
    const find = new RareFirst(word);
    for (const from of [-5, -1, 0, 1, 2, 9, 10, 16, 19, 20, 21, 100, 1.5, Number.NaN]) {
      assert.equal(find.in(text, from), text.indexOf(word, from), `${word} from ${from}`);
    }
    assert.equal(find.in(text), text.indexOf(word), word);
  }
});

test('a word whose rarest letter is not its first is found by it, and a text of a million characters is read to its end', () => {
  // the rare letter ends the word: a text full of its other letters holds the word only where it ends that way
  const text = `${'ese tset '.repeat(120_000)}testq`;
  const find = new RareFirst('testq');
  assert.equal(find.in(text), text.length - 5);
  assert.equal(find.in(text, text.length - 4), -1);
  assert.equal(new RareFirst('settq').in(text), -1);
  // the first of equally rare letters is taken: each place is still found once, in order
  assert.deepEqual(places('qzqz qz zq', (t, from) => new RareFirst('qz').in(t, from)), [0, 2, 5]);
});
