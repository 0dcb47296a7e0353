import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CYRILLIC_RANGES, hasCyrillicLetter, isCyrillicWord } from '../../src/core/cyrillic';

test('CYRILLIC_RANGES hold every code point of the Cyrillic script: a text without one holds no Cyrillic word', () => {
  const missing: string[] = [];
  for (let c = 0; c <= 0x10ffff; c++) {
    if (c >= 0xd800 && c <= 0xdfff) continue;
    const char = String.fromCodePoint(c);
    if (isCyrillicWord(char) && !hasCyrillicLetter(`a ${char} b`)) missing.push(c.toString(16));
  }
  assert.deepEqual(missing, []);
  assert.ok(CYRILLIC_RANGES.every(([from, to]) => from < to));
  assert.equal(hasCyrillicLetter('User: fix the coupon total — naïve café'), false);
  assert.equal(hasCyrillicLetter('см. файлам'), true);
});
