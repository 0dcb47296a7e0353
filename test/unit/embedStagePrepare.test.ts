import assert from 'node:assert/strict';
import * as path from 'node:path';
import { test } from 'node:test';
import type { Embedder } from '../../src/core/embed/embedder';
import { embedStore } from '../../src/core/embed/stage';
import { WordVectorEmbedder } from '../../src/core/embed/wordVectorEmbedder';
import { openFixture } from './searchFixture';

const BUILTIN = path.join(path.resolve(__dirname, '../../..'), 'dist/models/word-vectors-100d');

test("the embed stage has the embedder prepare (the built-in model's word table, a slice at a time) before its first embedding, and only when it has something to embed", async () => {
  const fx = await openFixture();
  const model = await WordVectorEmbedder.load(BUILTIN);
  try {
    const calls: string[] = [];
    // the built-in model itself, its calls written down
    const seen: Embedder = {
      modelId: model.modelId,
      dimension: model.dimension,
      prepare: () => (calls.push('prepare'), model.prepare()),
      embed: (texts) => (calls.push('embed'), model.embed(texts)),
      dispose: () => Promise.resolve(),
    };
    const first = await embedStore(fx.store, seen, { layers: ['core'] });
    assert.ok((first.embedded.core ?? 0) > 0);
    assert.equal(calls[0], 'prepare', calls.join(' '));
    assert.ok(calls.includes('embed'));
    calls.length = 0;
    await embedStore(fx.store, seen, { layers: ['core'] });
    assert.deepEqual(calls, [], 'nothing to embed: nothing prepared');
  } finally {
    await model.dispose();
    await fx.store.close();
  }
});
