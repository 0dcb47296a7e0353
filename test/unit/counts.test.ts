import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { Memory } from '../../src/core/memory';
import type { StoreCounts } from '../../src/core/store/storeStats';
import { tempDir } from './helpers';

// more than one write group (indexer GROUP_SOURCES = 64)
const FILES = 150;

/** A SpecStory history of FILES sessions, each two exchanges about its own topic. */
function history(): string {
  const root = tempDir('counts-');
  const dir = path.join(root, 'w', '.specstory', 'history');
  mkdirSync(dir, { recursive: true });
  for (let i = 0; i < FILES; i++) {
    const turns = [1, 2].map(
      (k) =>
        `_**User**_\n\nStep ${k} of topic ${i}: make the importer number ${i} keep every reading of its gauge.\n\n---\n\n` +
        `_**Assistant**_\n\nDone for topic ${i}, step ${k}: the loop now runs over all the rows, and a test covers the last one.\n\n---\n`,
    );
    writeFileSync(path.join(dir, `2025-06-20_${String(8 + Math.floor(i / 60)).padStart(2, '0')}-${String(i % 60).padStart(2, '0')}Z-topic-${i}.md`), `# Topic ${i}\n\n${turns.join('\n')}`);
  }
  return root;
}

test('the headline counts can be read while an index run writes: exchanges, then distilled ones, grow with it and end at the stats figures', async () => {
  const root = history();
  const memory = await Memory.open(path.join(root, 'recall.sqlite'));
  try {
    const reads: Array<Promise<StoreCounts>> = [];
    const distilling: Array<Promise<StoreCounts>> = [];
    await memory.index(
      {
        discover: { workspaceRoots: [path.join(root, 'w')], claudeRoots: [], codexRoots: [], extraRoots: [], includeSubagents: true },
        segment: { minChars: 50, maxPlies: 20 },
      },
      (p) => {
        if (p.phase === 'parse') reads.push(memory.counts());
        if (p.phase === 'distill') distilling.push(memory.counts());
      },
    );
    const seen = (await Promise.all(reads)).map((c) => c.exchanges);
    const stats = await memory.stats();
    assert.equal(stats.exchanges, 2 * FILES);
    assert.ok(seen.some((n) => n > 0 && n < stats.exchanges), `counts during the run: ${seen.join(' ')}`);
    assert.deepEqual(seen, [...seen].sort((a, b) => a - b), 'never going back');
    const distilled = (await Promise.all(distilling)).map((c) => c.distilled);
    assert.equal(stats.compression.distilled, 2 * FILES);
    assert.ok(distilled.some((n) => n > 0 && n < stats.compression.distilled), `distilled during the run: ${distilled.join(' ')}`);
    const { conversations, exchanges, exchangesByAgent } = stats;
    assert.deepEqual(await memory.counts(), { conversations, exchanges, exchangesByAgent, distilled: stats.compression.distilled });
  } finally {
    await memory.close();
  }
});
