import assert from 'node:assert/strict';
import { test } from 'node:test';
import { stableId } from '../../src/core/ids';

test("stable ids never change: a store's exchanges and conversations are found again by them", () => {
  // the ids of main at 1b64e5f, when each part and its separator were hashed as one string
  assert.equal(stableId('claude-code', '0a0a-uuid', 0), 'd5e7446a7afd6caf89db62b1');
  assert.equal(stableId('codex', '/x/y.jsonl', 12, undefined, 3), 'a46fb37d5c2b7ffecc330a31');
  assert.equal(stableId('specstory-message', 'é\ud800', '😀😀😀'), 'eefd2e6e00e920f3d0b2e05a', 'a lone surrogate, a pair');
  assert.equal(stableId(), 'e3b0c44298fc1c149afbf4c8');
  assert.equal(stableId('', ''), '96a296d224f285c67bee93c3');
  assert.equal(stableId('a\u0000b'), '8fb20ef63ced4145fc2e983f');
});
