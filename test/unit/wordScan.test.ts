import assert from 'node:assert/strict';
import { test } from 'node:test';
import { namesValueOrAction } from '../../src/core/distill/nonThemes';
import { asciiWordEnd, nextTokenStart } from '../../src/core/distill/contentWords';
import { blockLine, cleanProse, oneLine, sentencePieces } from '../../src/core/distill/prose';
import { WordRarity, words } from '../../src/core/distill/wordRarity';

/** Texts of every class of character, fixed and random: what the distiller's word loops read. */
function samples(): string[] {
  const fixed = [
    'retry_timeout ошибка v2 ÉCOLE İstanbul straße ǅungla 漢字かな 𝒜𝒷 𝟘𝟙 ٣٤ x_ _y __',
    'userId user_id isActive getÜser aÄb maxStates GeminiClient SYSTEM_PERSONA p5Instance éTé_x ñandú_id',
    'lone \ud800 high, \udc00 low, pair \ud83d\ude00x, a\u0301b, ﬁle, Ⅻ, ½',
    '', ' ', '_', 'a', 'Z',
  ];
  const palette = ['a', 'q', 'Z', 'É', 'é', 'İ', 'ß', 'ǅ', 'ж', 'Ж', '漢', '𝒜', '1', '٣', '𝟘', '½', '_', ' ', '-', "'", '\n', '🙂', '\ud800', '\udc00', '\u0301'];
  let seed = 11;
  const next = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
  const random = Array.from({ length: 3000 }, () => {
    let t = '';
    for (let k = next() % 16; k >= 0; k--) t += palette[next() % palette.length];
    return t;
  });
  return [...fixed, ...random];
}

test('words are the runs of [\\p{L}\\p{N}_] of the lower-cased text, as the pattern finds them', () => {
  for (const t of samples()) assert.deepEqual(words(t), t.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [], JSON.stringify(t));
});

test('an identifier of a value or an action is told by its shape first, read the same for ASCII and other words', () => {
  // the shape as the pattern reads it: lower case first, then an underscore or a capital somewhere
  const shaped = (w: string): boolean => /^\p{Ll}[^_\p{Lu}]*[_\p{Lu}]/u.test(w);
  for (const t of samples()) {
    for (const w of t.split(/[\s-]+/u)) if (!shaped(w)) assert.equal(namesValueOrAction(w), false, JSON.stringify(w));
  }
  for (const w of ['user_id', 'userId', 'isActive', 'maxStates', 'add_turn', 'takeSnapshot', 'getÜser']) assert.equal(namesValueOrAction(w), true, w);
  for (const w of ['sessionMiddleware', 'google_search', 'GeminiClient', 'SYSTEM_PERSONA', 'user', 'élan_vital']) assert.equal(namesValueOrAction(w), false, w);
});

test('oneLine folds whitespace as the pattern does, and leaves a line of single spaces as it is', () => {
  const extra = ['a  b', ' a b ', 'a\tb', 'a \nb', 'a\u00a0b', 'a\u2028 b', 'one line of words', '  ', ''];
  for (const t of [...samples(), ...extra]) assert.equal(oneLine(t), t.replace(/\s+/g, ' ').trim(), JSON.stringify(t));
});

test('a concept word token starts where the word pattern would find one, from any place (U+0345 folds to a letter)', () => {
  const pattern = /[\p{L}][\p{L}\p{N}_]*(?:[-‐‑][\p{L}\p{N}]+)*(?:['’](?:s|ve|ll|re|d|m|t)(?![\p{L}\p{N}]))?/giu;
  for (const t of [...samples(), 'a\u0345b \u0345x 1\u0345', '𝒜\ud835', '\udc00𝒜']) {
    for (let from = 0; from <= t.length; from++) {
      pattern.lastIndex = from;
      const want = pattern.exec(t)?.index ?? t.length;
      // the pattern never starts inside a surrogate pair; a place inside one is not asked for
      if (from > 0 && (t.charCodeAt(from) & 0xfc00) === 0xdc00 && (t.charCodeAt(from - 1) & 0xfc00) === 0xd800) continue;
      assert.equal(nextTokenStart(t, from), want, `${JSON.stringify(t)} from ${from}`);
    }
  }
});

test('an ASCII word token ends where the word pattern ends it, and every other token is left to the pattern', () => {
  const pattern = /[\p{L}][\p{L}\p{N}_]*(?:[-‐‑][\p{L}\p{N}]+)*(?:['’](?:s|ve|ll|re|d|m|t)(?![\p{L}\p{N}]))?/iuy;
  const extra = ["don't we'll Google's O'Brien l'API x’s", 'full-text a-1 b- c_-d IP‑Adapter e2e_ f_1.g2 h\u0345 K\u212a', 'abc', 'ab9_ x'];
  let read = 0;
  for (const t of [...samples(), ...extra]) {
    for (let start = 0; start < t.length; start++) {
      pattern.lastIndex = start;
      if (!pattern.test(t)) {
        assert.equal(asciiWordEnd(t, start), -1, `${JSON.stringify(t)} at ${start}`);
        continue;
      }
      const end = asciiWordEnd(t, start);
      if (end < 0) continue;
      read++;
      assert.equal(end, pattern.lastIndex, `${JSON.stringify(t)} at ${start}`);
    }
  }
  assert.ok(read > 400, `only ${read} tokens read by codes`);
});

test("a line's sentence pieces are those the look-behind pattern splits it into", () => {
  const extra = ['One. Two!  Three?\tFour。五！ 六？\u3000seven', 'a. ', '. x', 'end.', 'x .\u00a0\u2028 y', 'no end here', '...  ', ''];
  const palette = ['a', 'É', '.', '!', '?', '。', '！', '？', ' ', '  ', '\t', '\n', '\u00a0', '\u3000', '\u2028', '\ufeff', '\u200b', ','];
  let seed = 7;
  const next = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
  const random = Array.from({ length: 3000 }, () => Array.from({ length: next() % 12 }, () => palette[next() % palette.length]).join(''));
  for (const t of [...samples(), ...extra, ...random]) assert.deepEqual(sentencePieces(t), t.split(/(?<=[.!?。！？])\s+/u), JSON.stringify(t));
});

test('cleanProse skips only passes that could not match: the same prose as every pass run in turn', () => {
  // the passes as they were run before (each on every text), the reference
  const everyPass = (text: string): string =>
    text
      .replace(/(`{3,})[^`\n]*\n?([\s\S]*?)(?:\1`*(?![\p{L}\p{N}_+-])|$)/gu, (_, _fence: string, body: string) => `\n\n\u0004${blockLine(body)}\n\n`)
      .replace(/^[ \t]*\|.*\|[ \t]*$/gm, '\n')
      .replace(/^[ \t]*▌[ \t]?/gm, '')
      .replace(/^[ \t]{0,3}#{1,6}[ \t]+/gm, '\n\u0001')
      .replace(/^[ \t]{0,3}(?:[-*+]|\d+[.)])[ \t]+/gm, '\n\u0003')
      .replace(/^[ \t]{0,3}>[ \t]+/gm, '\n')
      .replace(/^[ \t]*\u0003?(?:\*\*[^*\n]+\*\*[ \t]*)+$/gm, (line) => line.replace(/\*\*([^*\n]+)\*\*/g, '\n\u0001$1\n'))
      .replace(/!\[[^\]\n]*\]\([^)\n]*\)/g, '')
      .replace(/\[([^\]\n]+)\]\([^)\n]*\)/g, '$1')
      .replace(/<\/?[a-z][^>\n]*>/gi, ' ')
      .replace(/★?\s*[A-Z][\w ]{0,20}[─━═]{3,}[─━═\s]*/g, '\n')
      .replace(/[─━═│┃┌┐└┘├┤┬┴┼╭╮╯╰]{2,}/g, '\n')
      .replace(/(?<!`)``(?!`)/g, '\u0002')
      .replace(/\*\*([^*\n]+)\*\*(?=\*\*|\p{Lu}|[-–—]\s|`)/gu, '\n\u0001$1\n')
      .replace(/\*\*|__/g, ' ')
      .replace(/(^|[\s(])[*_]([^*_\n]+)[*_](?=[\s.,;:!?)]|$)/gm, '$1$2')
      .replace(/[ \t]+(?=[.,;:!?](?:\s|$))/g, '');
  const palette = ['word ', 'Word', '\n', '\n- ', '\n1. ', '\n## ', '> ', '**', '*', '_', '__', '`', '``', '```', '|', '▌', '![a](b)', '[x](y)', '<b>', '</i>', '★ Insight ', '───', '═', '│', '┌┐', ' .', ', ', '!', '(', ')', '[', ']', 'É', '\t'];
  let seed = 5;
  const next = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
  for (let i = 0; i < 5000; i++) {
    let t = '';
    for (let k = next() % 30; k >= 0; k--) t += palette[next() % palette.length];
    assert.equal(cleanProse(t), everyPass(t), JSON.stringify(t));
  }
});

test('a generic word is one ranked among the 3,000 commonest, or unranked and generic in another language', () => {
  const rarity = new WordRarity(new Map([['the', 1], ['data', 200], ['set', 3000], ['session', 3550]]), new Set(['pero', 'data', 'session']));
  const generic = ['the', 'data', 'set', 'pero'].filter((w) => rarity.isGeneric(w));
  assert.deepEqual(generic, ['the', 'data', 'set', 'pero']);
  // ranked rarer than 3,000: not generic, whatever another language's list says
  assert.equal(rarity.isGeneric('session'), false);
  assert.equal(rarity.isGeneric('nuxt'), false);
});
