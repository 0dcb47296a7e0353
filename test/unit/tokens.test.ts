import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { countTokens } from '../../src/core/tokens';

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
