import assert from 'node:assert/strict';
import { test } from 'node:test';
import { literalKeys, PairSet } from '../../src/core/distill/pairSet';
import { redactionRules } from '../../src/core/distill/redact';
import { seededText } from './helpers';

/** Characters whose low bytes collide (a, ġ U+0121... ) and the redaction literals' own, so the set's sharing is exercised. */
const CHARS = ['a', 'k', 'e', 'y', 's', '-', '_', '=', ':', '/', 'A', 'K', 'I', ' ', '\n', 'ġ', 'š', 'ſ', 'K', 'İ', '😀', 'ā', 'Ǡ'];

const randomText = (seed: number, length: number): string => seededText(CHARS, seed, length);

test('a text holds a literal only where its pair set may hold it: literals are found as by a scan for each', () => {
  const literals = [...new Set(redactionRules().flatMap((r) => ('needs' in r && r.needs ? r.needs : [])))];
  literals.push('', 'a', 'ġ', 'ks', 'key', 'sk-', 'a=', 'İk', '😀a');
  for (let seed = 1; seed <= 400; seed++) {
    literals.push(randomText(seed * 7, 1 + (seed % 4)));
  }
  const set = new PairSet();
  let ruledOut = 0;
  for (let seed = 1; seed <= 400; seed++) {
    const text = randomText(seed, seed % 50) + (seed % 3 === 0 ? 'password=' : '');
    set.of(text);
    for (const literal of literals) {
      const may = set.mayHold(literalKeys(literal));
      if (text.includes(literal)) assert.ok(may, `${JSON.stringify(text)} holds ${JSON.stringify(literal)}`);
      else if (!may) ruledOut++;
    }
  }
  // the set rules out most absent literals, or it would spare no scan
  assert.ok(ruledOut > 100_000, `${ruledOut} ruled out`);
});

test('a pair set made again forgets the text before', () => {
  const set = new PairSet();
  set.of('password=hunter2');
  assert.ok(set.mayHold(literalKeys('password=')));
  set.of('nothing here');
  assert.equal(set.mayHold(literalKeys('password=')), false);
  assert.equal(set.mayHold(literalKeys('=')), false);
  assert.ok(set.mayHold(literalKeys('here')));
  set.of('');
  assert.equal(set.mayHold(literalKeys('h')), false);
  assert.ok(set.mayHold(literalKeys('')));
});

test('a pair set made again more times than its generations count still says only what the last text holds', () => {
  const set = new PairSet();
  // the first text's pairs hold the first generation; 65,535 texts later the generations start over at it
  set.of('password=');
  for (let i = 0; i < 0xffff; i++) set.of('nothing');
  // the last text was 'nothing': its pairs only
  assert.ok(set.mayHold(literalKeys('nothing')));
  assert.equal(set.mayHold(literalKeys('password=')), false);
  assert.equal(set.mayHold(literalKeys('=')), false);
});
