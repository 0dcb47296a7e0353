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
    // another request answered alike: its prompt line differs (one line of twenty), and so do most of its words
    const redo = 'why do the redo tests fail';
    assert.ok(!sameExchange({ prompt, verbatim: undoExchange('notes') }, { prompt: redo, verbatim: undoExchange('notes').replace(`User: ${prompt}`, `User: ${redo}`) }));
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

/**
 * Two SpecStory exports of one conversation, the second after the project renamed `notes/` to `docs/`: the
 * rename is in the prompt too (issue 39: such copies escaped, as only exchanges with the very same prompt were
 * compared; seven pairs on the shared corpus).
 */
function planExchange(folder: string): string {
  const lines = [`User: Thanks! Now, last step: create a concise overview in ${folder}/plans/undo.md of the layer undo design`];
  lines.push('Assistant: I will write the overview of the undo design.');
  for (let i = 0; i < 20; i++) lines.push(`Section ${i}: the undo stack keeps snapshot ${i} of each layer in ${i === 8 ? `${folder}/plans` : 'memory'}.`);
  return lines.join('\n');
}

describe('two exports of one conversation whose prompt names a renamed folder', () => {
  const promptOf = (folder: string) => planExchange(folder).split('\n')[0]!.slice('User: '.length);

  test('are one exchange; another request of the same form is not', () => {
    assert.ok(sameExchange({ prompt: promptOf('notes'), verbatim: planExchange('notes') }, { prompt: promptOf('docs'), verbatim: planExchange('docs') }));
    const other = planExchange('notes').replace('concise overview', 'list of the tests').replace('undo design', 'redo tests');
    assert.ok(!sameExchange({ prompt: promptOf('notes'), verbatim: planExchange('notes') }, { prompt: other.split('\n')[0]!.slice(6), verbatim: other }));
  });

  let fx: Fixture;
  before(async () => {
    fx = await openFixture(
      ['notes', 'docs'].map((folder) => ({
        file: `2025-06-21_14-12${folder === 'docs' ? 'Z' : ''}-overview.md`,
        agent: 'specstory',
        project: '/p/paint',
        exchanges: [{ key: folder, text: planExchange(folder), startedAt: '2025-06-21T14:12:00Z' }],
      })),
    );
  });
  after(() => fx?.store.close());

  test('search shows one of them, listing the other; the viewer lists it too', async () => {
    const r = await createSearcher(fx.reads).search({ text: 'overview of the layer undo design plans', mode: 'verbatim/bm25' });
    assert.equal(r.hits.length, 1, `one hit: ${r.hits.map((h) => fx.keys.get(h.exchangeId))}`);
    assert.equal(r.hits[0]!.copies?.length, 1);
    const memory = await Memory.openReadOnly(fx.store.db.file);
    try {
      const listed = await memory.savedCopies((await memory.exchange(fx.ids.get('notes')!))!);
      assert.deepEqual(listed.map((c) => path.basename(c.file)), ['2025-06-21_14-12Z-overview.md']);
    } finally {
      await memory.close();
    }
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
