import assert from 'node:assert/strict';
import test from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { withPlanAsAnswer } from '../../src/core/distill/exitPlan';
import { proseSentences } from '../../src/core/distill/prose';
import { splitVerbatim } from '../../src/core/distill/verbatimParts';
import { plainKeyWords } from '../../src/core/roomKey';

// The distiller's objects and arrays of one kind each keep one map (a hidden class): V8 throws away code compiled
// for one map when another comes, and compiles it again. Whether two values share a map is V8's to say.
setFlagsFromString('--allow-natives-syntax');
const sameMap = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;

test('verbatim parts have one map, plans marked as the answer included', () => {
  const parts = splitVerbatim('User: plan it\n[tool] Read a.ts\nAssistant: Ready.\n[tool] ExitPlanMode {"plan":"# Plan\\n\\nDo it."}');
  const planned = withPlanAsAnswer(parts);
  assert.equal(planned.filter((p) => p.plan).length, 1);
  const shown = withPlanAsAnswer(splitVerbatim('User: plan it\n[tool] ExitPlanMode\nAssistant: # Plan\n\nDo it.'));
  assert.equal(shown.filter((p) => p.plan).length, 1);
  for (const p of [...planned, ...shown]) assert.ok(sameMap(p, parts[0]!), `${p.kind}${p.plan ? ' (plan)' : ''}`);
});

test('prose sentences have one map, a lead-in with its list included', () => {
  const sentences = proseSentences('The build was fixed in three places.\n\nHere are the changes made:\n- the parser reads tabs\n- the store keeps rooms');
  assert.ok(sentences.some((s) => s.list !== undefined) && sentences.some((s) => s.list === undefined));
  for (const s of sentences) assert.ok(sameMap(s, sentences[0]!), s.text);
});

test('a word\'s key words are arrays of one map, before and after V8 optimises their making', () => {
  const literal = ['a', 'b'];
  literal.push('c');
  // enough distinct words for the memoised function and keyWords to be compiled by TurboFan, whose map is inlined
  for (let i = 0; i < 30_000; i++) {
    const word = `${i % 2 === 0 ? 'rate' : 'Token'}${'abcdefghij'[i % 10]}${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + ((i >> 5) % 26))}${String.fromCharCode(97 + ((i >> 10) % 26))}`;
    const keys = plainKeyWords(i % 3 === 0 ? `${word} limiting` : word)!;
    assert.ok(sameMap(keys as string[], literal), `${word}: another map`);
  }
});
