import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { adoptPieceCounts, countTokens, pieceCountBytes, rememberedPieceCount } from '../../src/core/tokens';
import { tempDir } from './helpers';

const TOKENS = path.join(__dirname, '../../src/core/tokens.js');
const KEPT_TABLE = path.join(__dirname, '../../src/mcp/keptTable.js');
/** Words, code, paths, other scripts, an emoji, a lone surrogate (UTF-8 would not give it back), a long run. */
const TEXTS = [
  'The searcher warms after the first answer; its reads ahead copy the vectors.',
  'const slots = new Int32Array(REMEMBERED_SLOTS * SLOT_INTS); // [hash, entry + 1, count]',
  '/work/wt/cold20/src/core/tokens.ts:42 → 100,256 tokens',
  'Поиск по смыслу и по словам, 意味で検索する 🚀',
  'a lone \ud800 surrogate and \udfff another',
  'x'.repeat(300),
];

interface Run {
  readonly counts: number[];
  /** Pieces remembered before counting (taken back) and after. */
  readonly before: number;
  readonly after: number;
}

/** Counts `texts` in a fresh Node process (the counter's memory is a process's) that takes back and keeps in `dir`. */
function freshServer(dir: string, texts: readonly string[]): Run {
  const script = `const t = require(${JSON.stringify(TOKENS)}); const kept = require(${JSON.stringify(KEPT_TABLE)}).keptPieceCounts(${JSON.stringify(dir)});
    const before = t.rememberedPieceCount(); const counts = ${JSON.stringify(texts)}.map(t.countTokens); const after = t.rememberedPieceCount();
    kept.keep(); process.stdout.write(JSON.stringify({ counts, before, after }));`;
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' })) as Run;
}

/** Whether a fresh process takes back `bytes`, and what it then counts `TEXTS` to. */
function freshAdopt(bytes: Uint8Array): { adopted: boolean; counts: number[] } {
  const script = `const t = require(${JSON.stringify(TOKENS)}); const adopted = t.adoptPieceCounts(Buffer.from(${JSON.stringify(Buffer.from(bytes).toString('base64'))}, 'base64'));
    process.stdout.write(JSON.stringify({ adopted, counts: ${JSON.stringify(TEXTS)}.map(t.countTokens) }));`;
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' })) as { adopted: boolean; counts: number[] };
}

describe('the token counter\'s pieces kept between an MCP server\'s starts (its first calls counted them new)', () => {
  const want = TEXTS.map(countTokens);

  test('a server keeps what it counted as it closes; the next takes it back and counts the same without counting anew', () => {
    const dir = tempDir('kept-pieces-');
    const first = freshServer(dir, TEXTS);
    assert.deepEqual(first.counts, want);
    assert.equal(first.before, 0, 'nothing kept yet');
    assert.ok(first.after > 20, `${first.after} pieces`);
    const file = path.join(dir, 'pieces.table');
    const written = statSync(file).mtimeMs;
    const next = freshServer(dir, TEXTS);
    assert.deepEqual(next.counts, want);
    assert.equal(next.before, first.after, 'every piece taken back');
    assert.equal(next.after, next.before, 'each piece found among them, none counted anew');
    assert.equal(statSync(file).mtimeMs, written, 'nothing new: not written again');
    // a server that meets new pieces keeps them with the ones it took back
    const more = freshServer(dir, ['Pieces never met before: zyzzyva quixotic'.repeat(2)]);
    assert.equal(more.before, first.after);
    assert.ok(more.after > more.before);
    assert.equal(freshServer(dir, TEXTS).before, more.after);
  });

  test('bytes that are not a whole table of this layout are not taken: the counts are made, the same', () => {
    const bytes = pieceCountBytes();
    assert.equal(adoptPieceCounts(bytes), false, 'a process that remembers pieces already takes none back');
    assert.ok(rememberedPieceCount() > 0);
    const ints = (b: Uint8Array): Int32Array => new Int32Array(b.buffer, b.byteOffset, 3);
    const otherFormat = Uint8Array.from(bytes);
    ints(otherFormat)[0] = 2;
    const moreChars = Uint8Array.from(bytes);
    ints(moreChars)[2]! += 1;
    const variants = { whole: bytes, short: bytes.subarray(0, bytes.length - 2), otherFormat, moreChars, empty: new Uint8Array(0) };
    for (const [name, b] of Object.entries(variants)) {
      const { adopted, counts } = freshAdopt(b);
      assert.equal(adopted, name === 'whole', name);
      assert.deepEqual(counts, want, name);
    }
  });
});
