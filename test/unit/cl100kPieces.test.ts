import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pieceEnd } from '../../src/core/cl100kPieces';

/** js-tiktoken's own pre-tokenising pattern for cl100k, run as a pattern. */
const PATTERN = new RegExp((require('js-tiktoken/ranks/cl100k_base') as { pat_str: string }).pat_str, 'gu');

function patternPieces(text: string): string[] {
  return [...text.matchAll(PATTERN)].map((m) => m[0]);
}

function readPieces(text: string): string[] {
  const out: string[] = [];
  for (let at = 0; at < text.length; ) {
    const end = pieceEnd(text, at);
    assert.ok(end > at, `no progress at ${at} of ${JSON.stringify(text)}`);
    out.push(text.slice(at, end));
    at = end;
  }
  return out;
}

test('pieces are the pattern\'s, on texts of every class of character', () => {
  const texts = [
    "User: they're we'll I'M you'VE it's 'sam 'LL 'Re '' ' 's",
    '  \n  hello\r\n\r\n\tworld   \u00a0word\u3000漢字 end   ',
    'numbers 1234567 3.14 ٣٤٥٦ 𝟘𝟙𝟚𝟛 x2 2x',
    'emoji 🙂🚀hello 👍🏽 (paren) [br]{c} a.b,c;d:e!f?g "q" ‘q’ —dash— …',
    'Привет, мир! 数据库连接失败，请检查配置。 안녕하세요',
    'lone \ud800 high, \udc00 low, pair \ud83d\ude00x',
    ' !!\n\n !x \r\n?\n\ny',
    '\n', ' ', 'a', "'", '\ud800', '   ', ' \n', '\n ', '  a', '\t\tb',
  ];
  for (const t of texts) assert.deepEqual(readPieces(t), patternPieces(t), JSON.stringify(t));
});

test('pieces are the pattern\'s on random strings of letters, numbers, spaces, symbols and surrogates', () => {
  const palette = ['a', 'Z', 'é', 'ж', '漢', '𝒜', '1', '٣', '𝟘', ' ', ' ', '\t', '\n', '\r', '\u00a0', '\u2028', '\ufeff', "'", 's', 't', 'l', 'r', 'e', 'v', 'D', '.', '-', '🙂', '\ud800', '\udc00', '_', '"', '€'];
  let seed = 7;
  const next = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
  for (let i = 0; i < 4000; i++) {
    let t = '';
    for (let k = next() % 24; k >= 0; k--) t += palette[next() % palette.length];
    assert.deepEqual(readPieces(t), patternPieces(t), JSON.stringify(t));
  }
});
