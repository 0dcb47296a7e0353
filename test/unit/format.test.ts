import assert from 'node:assert/strict';
import { test } from 'node:test';
import { touchedPhrase } from '../../src/core/format';

test('says how a file was touched with "line" for one line and "lines" for ranges (issue 39: "edit lines 22")', () => {
  assert.equal(touchedPhrase('edit', [{ start: 22, end: 22 }]), 'edited line 22');
  assert.equal(touchedPhrase('edit', [{ start: 22, end: 25 }]), 'edited lines 22–25');
  assert.equal(touchedPhrase('write', [{ start: 3, end: 3 }, { start: 12, end: 18 }]), 'wrote lines 3, 12–18');
  assert.equal(touchedPhrase('read', undefined), 'read');
  assert.equal(touchedPhrase('mention', []), 'mentioned');
});
