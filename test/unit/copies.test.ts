import assert from 'node:assert/strict';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { firstCorrectRank } from '../../src/core/eval/metrics';
import { Memory } from '../../src/core/memory';
import { copiesAmong, sameExchange } from '../../src/core/search/copies';
import { createSearcher } from '../../src/core/search/searcher';
import type { SearchResult } from '../../src/core/search/types';
import { type Fixture, type FixtureConversation, openFixture } from './searchFixture';

/** An exchange of twenty lines; `folder` is the one word its two saves differ in (SpecStory after a rename). */
function undoExchange(folder: string, topic = 'undo'): string {
  const lines = [`User: the ${topic} tests fail after the wraparound`, `Assistant: Looking at the failing ${topic} tests.`];
  for (let i = 0; i < 17; i++) lines.push(`Step ${i}: the circular buffer keeps snapshot ${i} of the layers.`);
  lines.push(`See ${folder}/plans/${topic}-refactor.md for the plan.`);
  return lines.join('\n');
}

describe('one exchange saved twice (copies.ts)', () => {
  const prompt = 'the undo tests fail after the wraparound';

  test('the same prompt with nearly the same lines is one exchange; another answer or another prompt is not', () => {
    assert.ok(sameExchange({ prompt, verbatim: undoExchange('notes') }, { prompt: `${prompt}  `, verbatim: undoExchange('docs') }));
    assert.ok(!sameExchange({ prompt, verbatim: undoExchange('notes') }, { prompt: 'why do the redo tests fail', verbatim: undoExchange('notes') }));
    const answeredAgain = undoExchange('notes').replace(/snapshot (\d)\b/g, 'copy $1 after a rewrite');
    assert.ok(!sameExchange({ prompt, verbatim: undoExchange('notes') }, { prompt, verbatim: answeredAgain }));
    assert.ok(!sameExchange({ prompt: 'proceed', verbatim: 'User: proceed\nAssistant: Done.' }, { prompt: 'proceed', verbatim: 'User: proceed\nAssistant: Renamed the module and updated its three imports.' }));
  });

  test('copiesAmong: each later copy maps to the first of its kind; rows without a text are never copies', () => {
    const texts = new Map([
      [1, { prompt, verbatim: undoExchange('notes') }],
      [2, { prompt, verbatim: undoExchange('docs') }],
      [3, { prompt: 'publish the post', verbatim: 'User: publish the post\nAssistant: Published.' }],
      [5, { prompt, verbatim: undoExchange('src') }],
    ]);
    assert.deepEqual([...copiesAmong([1, 2, 3, 4, 5], (n) => texts.get(n))], [[2, 1], [5, 1]]);
  });
});

describe('search shows an exchange saved twice once, with where else it was saved', () => {
  const saved = (file: string, folder: string, topic: string, before: FixtureConversation['exchanges'] = []): FixtureConversation => ({
    file,
    agent: 'specstory',
    project: '/p/paint',
    exchanges: [...before, { key: `${topic}-${file}`, text: undoExchange(folder, topic), startedAt: '2025-06-21T14:12:00Z' }],
  });
  const other = (key: string, words: string) => ({ key, text: `User: ${words}\nAssistant: ${words}, done.`, startedAt: '2025-06-21T10:00:00Z' });
  let fx: Fixture;
  const keysOf = (r: SearchResult) => r.hits.map((h) => fx.keys.get(h.exchangeId));

  before(async () => {
    fx = await openFixture([
      saved('one.md', 'notes', 'undo'),
      saved('two.md', 'docs', 'undo'),
      // three.md's own two best matches fill its two places above its redo exchange; four.md holds a copy of that
      saved('three.md', 'notes', 'redo', [other('r1', 'redo tests fail at the wraparound, redo buffer'), other('r2', 'redo tests fail on redo wraparound redo')]),
      saved('four.md', 'docs', 'redo'),
      { file: 'blog.md', agent: 'aider', project: '/p/blog', exchanges: [other('b1', 'the undo button of the blog editor')] },
    ]);
  });
  after(() => fx?.store.close());

  test('the copy is folded into the hit above it: the next exchange takes its place, and the hit lists the copy', async () => {
    const r = await createSearcher(fx.reads).search({ text: 'undo tests fail wraparound snapshot', mode: 'verbatim/bm25' });
    const keys = keysOf(r);
    assert.equal(keys.filter((k) => k === 'undo-one.md' || k === 'undo-two.md').length, 1, `one of the two, not both: ${keys}`);
    const hit = r.hits.find((h) => /^undo-/.test(fx.keys.get(h.exchangeId)!))!;
    const copyFile = path.join(fx.dir, /one/.test(fx.keys.get(hit.exchangeId)!) ? 'two.md' : 'one.md');
    assert.deepEqual(hit.copies, [{ file: copyFile, lineStart: 1, lineEnd: 9 }]);
    assert.ok(keys.includes('b1'), `the list is filled from below: ${keys}`);
    // a known-item target in the copy's transcript is found at the hit's rank
    assert.equal(firstCorrectRank(r.hits, [{ file: copyFile, line: 5 }]), r.hits.indexOf(hit) + 1);
  });

  test('"not this" on a hit leaves out its copies too', async () => {
    const searcher = createSearcher(fx.reads);
    const query = { text: 'undo tests fail wraparound snapshot', mode: 'verbatim/bm25' as const };
    const shown = (await searcher.search(query)).hits.find((h) => /^undo-/.test(fx.keys.get(h.exchangeId)!))!;
    const keys = keysOf(await searcher.search({ ...query, exclude: [shown.exchangeId] }));
    assert.ok(!keys.some((k) => /^undo-/.test(k!)), `neither of the two: ${keys}`);
  });

  test('a copy does not come back once the cap has left its original out', async () => {
    const r = await createSearcher(fx.reads).search({ text: 'redo tests fail wraparound', mode: 'verbatim/bm25', perConversation: 2 });
    const keys = keysOf(r);
    assert.deepEqual(new Set(keys.slice(0, 2)), new Set(['r1', 'r2']), `three.md's own best matches first: ${keys}`);
    assert.ok(!keys.includes('redo-three.md'), `left out by the cap: ${keys}`);
    assert.ok(!keys.includes('redo-four.md'), `four.md holds only a copy of the exchange the cap left out: ${keys}`);
  });

  test('read alone (the exchange viewer), an exchange lists its near copies as its hit does', async () => {
    const memory = await Memory.openReadOnly(fx.store.db.file);
    try {
      const copiesOf = async (key: string) => memory.savedCopies((await memory.exchange(fx.ids.get(key)!))!);
      assert.deepEqual(await copiesOf('undo-one.md'), [{ file: path.join(fx.dir, 'two.md'), lineStart: 1, lineEnd: 9 }]);
      assert.deepEqual(await copiesOf('undo-two.md'), [{ file: path.join(fx.dir, 'one.md'), lineStart: 1, lineEnd: 9 }]);
      // the same prompt in three.md and four.md, after other exchanges in three.md
      assert.deepEqual((await copiesOf('redo-four.md'))?.map((c) => path.basename(c.file)), ['three.md']);
      assert.deepEqual(await copiesOf('b1'), [], 'an exchange saved once has none');
    } finally {
      await memory.close();
    }
  });
});
