import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { builtinModelDir } from '../../src/core/embed/openEmbedder';
import { WordVectorEmbedder, type WordTableKeeper } from '../../src/core/embed/wordVectorEmbedder';
import { keepWordTable } from '../../src/mcp/keptTable';
import { tempDir } from './helpers';

const BUILTIN = builtinModelDir();

/** A keeper that gives `kept` back and records what it was given to keep. */
function keeper(kept?: Int32Array): WordTableKeeper & { readonly given: Int32Array[]; taken: number } {
  const given: Int32Array[] = [];
  return {
    given,
    taken: 0,
    take() {
      this.taken++;
      return kept;
    },
    keep: (slots) => void given.push(slots),
  };
}

describe('the built-in model\'s word table kept between starts (an MCP server\'s first calls made it)', () => {
  let made: WordVectorEmbedder;
  let slots: Int32Array;
  let texts: string[];
  let vectors: Float32Array[];

  before(async () => {
    const words = readFileSync(path.join(BUILTIN, 'words.txt'), 'utf8').split('\n');
    // the vocabulary's every 97th word beside another, the non-ASCII ones and an unknown one
    texts = [...words.filter((_, i) => i % 97 === 0).map((w, i) => `${w} ${words[(i * 7919) % words.length]}`), ...words.filter((w) => /[^\0-\x7f]/.test(w)), 'zzqxv'];
    made = await WordVectorEmbedder.load(BUILTIN);
    const k = keeper();
    made.keepTableWith(k);
    vectors = await made.embed(texts);
    assert.equal(k.given.length, 1, 'the table made is given to keep, once');
    slots = k.given[0]!;
  });
  after(() => made.dispose());

  test('a start after takes the kept table instead of making it, to the same vectors, both ways of first needing it', async () => {
    for (const first of ['embed', 'prepare'] as const) {
      const e = await WordVectorEmbedder.load(BUILTIN);
      try {
        const k = keeper(Int32Array.from(slots));
        e.keepTableWith(k);
        if (first === 'prepare') await e.prepare();
        assert.deepEqual(await e.embed(texts), vectors);
        assert.equal(k.taken, 1, first);
        assert.equal(k.given.length, 0, `${first}: a table taken back is not kept again`);
      } finally {
        await e.dispose();
      }
    }
  });

  test('a kept table that is not this list\'s own is made again, to the same vectors', async () => {
    const rows = slots.filter((s) => s > 0).length;
    const swapped = Int32Array.from(slots);
    // two rows' slots exchanged: each row still slotted once, but not where its hash leads
    const [a, b] = [swapped.indexOf(1), swapped.indexOf(rows)];
    [swapped[a], swapped[b]] = [swapped[b]!, swapped[a]!];
    const shifted = Int32Array.from(slots, (_, i) => slots[(i + 1) % slots.length]!);
    const variants = { short: slots.subarray(0, slots.length / 2), anotherHash: shifted, swapped };
    for (const [name, kept] of Object.entries(variants)) {
      const e = await WordVectorEmbedder.load(BUILTIN);
      try {
        const k = keeper(kept);
        e.keepTableWith(k);
        assert.deepEqual(await e.embed(texts), vectors, name);
        assert.equal(k.given.length, 1, `${name}: made again, and kept`);
      } finally {
        await e.dispose();
      }
    }
  });

  test('an MCP server keeps it in its start folder once, by its list, and the next start reads it from there', async () => {
    const dir = tempDir('kept-words-');
    const first = await WordVectorEmbedder.load(BUILTIN);
    keepWordTable(dir, first);
    assert.deepEqual(await first.embed(texts), vectors);
    await new Promise((resolve) => setImmediate(resolve));
    const files = readdirSync(dir);
    assert.equal(files.length, 1);
    assert.match(files[0]!, /^words-[0-9a-f]{16}\.table$/);
    const written = statSync(path.join(dir, files[0]!)).mtimeMs;
    const next = await WordVectorEmbedder.load(BUILTIN);
    keepWordTable(dir, next);
    await next.prepare();
    assert.deepEqual(await next.embed(texts), vectors);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(statSync(path.join(dir, files[0]!)).mtimeMs, written, 'taken back, not written again');
    await Promise.all([first.dispose(), next.dispose()]);
  });
});
