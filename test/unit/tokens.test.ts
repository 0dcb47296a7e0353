import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { isSpace } from '../../src/core/charClass';
import { countTokens, hasLongRun } from '../../src/core/tokens';

test('a 200 KB base64 run (no spaces) counts in well under a second', () => {
  countTokens('warm up the encoder');
  const run = randomBytes(150_000).toString('base64');
  assert.ok(run.length >= 200_000 && !/\s/.test(run));
  const t0 = performance.now();
  const n = countTokens(run);
  const ms = performance.now() - t0;
  assert.ok(ms < 1000, `took ${ms.toFixed(0)} ms`);
  // base64 is dense: far more than one token per 8 characters, far fewer than one per character
  assert.ok(n > run.length / 8 && n < run.length, `${n} tokens`);
});

test('a 200 KB run of one letter (a single pre-token) is guarded too', () => {
  const t0 = performance.now();
  const n = countTokens('a'.repeat(200_000));
  assert.ok(performance.now() - t0 < 1000);
  assert.ok(n > 0);
});

test('ordinary text counts exactly as cl100k does, and special-token text is plain text', () => {
  assert.equal(countTokens(''), 0);
  assert.equal(countTokens('hello world'), 2);
  // `<|endoftext|>` inside a transcript is text to count, not a reason to throw
  assert.ok(countTokens('the model emits <|endoftext|> at the end') > 8);
});

test('the estimate for a long run stays within 8% of the exact count', () => {
  // js-tiktoken counts a 4,000-char base64 run exactly in milliseconds (the pre-tokeniser breaks it up)
  const lite = require('js-tiktoken/lite') as { Tiktoken: new (r: unknown) => { encode(t: string, a: string[], d: string[]): number[] } };
  const encoder = new lite.Tiktoken(require('js-tiktoken/ranks/cl100k_base'));
  const exact = (t: string, a: string[], d: string[]): number[] => encoder.encode(t, a, d);
  for (let seed = 0; seed < 5; seed++) {
    const run = randomBytes(3_000).toString('base64');
    const want = exact(run, [], []).length;
    const got = countTokens(run);
    assert.ok(Math.abs(got - want) / want < 0.08, `estimate ${got} vs exact ${want}`);
  }
  const path = 'path/to/some/reasonably/long/file/name/that/is/still/under/the/cap.ts';
  assert.equal(countTokens(path), exact(path, [], []).length, 'runs up to the cap are exact');
});

test('counts are js-tiktoken cl100k counts, piece by piece and remembered', () => {
  const lite = require('js-tiktoken/lite') as { Tiktoken: new (r: unknown) => { encode(t: string, a: string[], d: string[]): number[] } };
  const encoder = new lite.Tiktoken(require('js-tiktoken/ranks/cl100k_base'));
  const texts = [
    'User: why does the build fail?\n\nAssistant: The `tsconfig.json` sets "strict": true, so `parseQuantity(x)` needs a type.',
    '    indented code\n\t\tfn main() { println!("{}", 42); }\r\n\r\n\n   trailing spaces   ',
    "they're we'll I'M you'VE it's — don’t «quotes» …ellipsis",
    'Привет, мир! Это тест токенизации. 数据库连接失败，请检查配置。 データベースに接続できません。 안녕하세요 세계',
    'emoji 🙂🚀👍🏽 and symbols ∑∫√ ≠ ≤ ≥ → ⇒ © ® ™',
    'numbers 1234567890 3.14159 1e-9 0xDEADBEEF 2026-11-29T08:52:15Z',
    `${'a'.repeat(250)} ${'ab'.repeat(120)} ${'-'.repeat(256)} ${' '.repeat(300)}end`,
    'the model emits <|endoftext|> and <|fim_prefix|> as text',
    'https://example.com/path/to/page?query=value&other=1#anchor src/core/store/lexicon.ts:120:5',
  ];
  for (const text of texts) {
    // twice: the second count comes from remembered pieces
    assert.equal(countTokens(text), encoder.encode(text, [], []).length, text.slice(0, 40));
    assert.equal(countTokens(text), encoder.encode(text, [], []).length, text.slice(0, 40));
  }
});

test('counts stay exact when the remembered pieces fill up and start over, and for pieces seen inside other texts', () => {
  const lite = require('js-tiktoken/lite') as { Tiktoken: new (r: unknown) => { encode(t: string, a: string[], d: string[]): number[] } };
  const encoder = new lite.Tiktoken(require('js-tiktoken/ranks/cl100k_base'));
  const sample = 'The fix: retry_timeout=30s in src/app.ts (ошибка 😀 …) — see https://example.com/a?b=c.\n\n  done';
  const want = encoder.encode(sample, [], []).length;
  assert.equal(countTokens(sample), want);
  // more distinct pieces than are remembered (100,000): the memory starts over in between
  const many = Array.from({ length: 130_000 }, (_, i) => `w${i.toString(36)}q`).join(' ');
  assert.equal(countTokens(many), encoder.encode(many, [], []).length);
  assert.equal(countTokens(sample), want);
  assert.equal(countTokens(`${sample} ${sample}`), encoder.encode(`${sample} ${sample}`, [], []).length);
});

test('runs are cut where a pattern\'s \\s would cut them: isSpace is \\s for every UTF-16 code unit', () => {
  for (let c = 0; c < 0x10000; c++) assert.equal(isSpace(c), /\s/.test(String.fromCharCode(c)), `U+${c.toString(16)}`);
});

test('a long run between any whitespace counts apart from the text around it', () => {
  const run = randomBytes(600).toString('base64');
  for (const space of [' ', '\t', '\n', '\u00a0', '\u2003', '\u3000', '\ufeff']) {
    const around = `before the run,${space}${run}${space}and after it`;
    assert.equal(countTokens(around), countTokens(`before the run,${space}${space}and after it`) + countTokens(run), JSON.stringify(space));
  }
  // a run at the cap is text like any other: counted exactly with its neighbours
  const lite = require('js-tiktoken/lite') as { Tiktoken: new (r: unknown) => { encode(t: string, a: string[], d: string[]): number[] } };
  const atCap = `a ${'x'.repeat(256)}\u00a0b`;
  assert.equal(countTokens(atCap), new lite.Tiktoken(require('js-tiktoken/ranks/cl100k_base')).encode(atCap, [], []).length);
});

test('one- and two-character ASCII pieces, counted without the memory, are js-tiktoken\'s counts', () => {
  const lite = require('js-tiktoken/lite') as { Tiktoken: new (r: unknown) => { encode(t: string, a: string[], d: string[]): number[] } };
  const encoder = new lite.Tiktoken(require('js-tiktoken/ranks/cl100k_base'));
  for (let a = 0; a < 128; a++) {
    const one = String.fromCharCode(a);
    assert.equal(countTokens(one), encoder.encode(one, [], []).length, JSON.stringify(one));
    for (let b = 0; b < 128; b++) {
      const two = one + String.fromCharCode(b);
      assert.equal(countTokens(two), encoder.encode(two, [], []).length, JSON.stringify(two));
      // the same pair as a piece inside a text (after a space, before a newline)
      const inText = `x ${two}\n`;
      assert.equal(countTokens(inText), encoder.encode(inText, [], []).length, JSON.stringify(inText));
    }
  }
});

test('a long run is found by probes exactly where a scan of every character finds one', () => {
  const naive = (t: string): boolean => /\S{257}/.test(t);
  const spaces = [' ', '\n', '\t', '\u00a0', '\u3000'];
  let seed = 11;
  const next = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
  for (let i = 0; i < 3000; i++) {
    let t = '';
    // runs of 0-300 characters (many near the cap) between whitespace, sometimes none at the ends
    for (let k = next() % 6; k >= 0; k--) {
      const n = next() % 3 === 0 ? 250 + (next() % 12) : next() % 300;
      t += 'ab1-é'.repeat(61).slice(0, n);
      if (next() % 4 !== 0) t += spaces[next() % spaces.length]!.repeat(1 + (next() % 3));
    }
    assert.equal(hasLongRun(t), naive(t), `${t.length} chars`);
  }
  for (const n of [0, 1, 256, 257, 600]) {
    const run = 'x'.repeat(n);
    for (const t of [run, ` ${run}`, `${run} `, `a ${run} b`]) assert.equal(hasLongRun(t), naive(t), `${n}: ${JSON.stringify(t.slice(0, 4))}`);
  }
});
