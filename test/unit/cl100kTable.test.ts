import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { cl100kTableBytes } from '../../src/core/cl100kTable';
import { readKept, writeKept } from '../../src/keptFile';
import { countTokens } from '../../src/core/tokens';

const TEXTS = [
  'User: why does the build fail?\n\nAssistant: The `tsconfig.json` sets "strict": true, so `parseQuantity(x)` needs a type.',
  'Привет, мир! 数据库连接失败，请检查配置。 データベース 안녕하세요 emoji 🙂🚀👍🏽 ∑∫√ ≠ 0xDEADBEEF',
  `${'a'.repeat(250)} ${'ab'.repeat(120)} https://example.com/path?query=value src/core/store/lexicon.ts:120:5`,
];

/**
 * In a fresh process (a table is taken back only before one is made): each of `files` offered in turn to
 * adoptCl100kTable, what it said, then the counts of TEXTS and whether the table's bytes are the kept ones.
 */
function adoptInChild(files: string[]): { adopted: boolean[]; counts: number[]; same: boolean } {
  const out = path.resolve(__dirname, '../../src/core');
  const script = `
    const { readFileSync } = require('node:fs');
    const table = require(${JSON.stringify(path.join(out, 'cl100kTable.js'))});
    const { countTokens } = require(${JSON.stringify(path.join(out, 'tokens.js'))});
    const files = JSON.parse(process.argv[1]);
    const adopted = files.map((f) => table.adoptCl100kTable(readFileSync(f)));
    const counts = JSON.parse(process.argv[2]).map(countTokens);
    const same = Buffer.compare(Buffer.from(table.cl100kTableBytes()), readFileSync(files[files.length - 1])) === 0;
    process.stdout.write(JSON.stringify({ adopted, counts, same }));`;
  return JSON.parse(execFileSync(process.execPath, ['-e', script, JSON.stringify(files), JSON.stringify(TEXTS)], { encoding: 'utf8' })) as ReturnType<typeof adoptInChild>;
}

test('the table kept as bytes and taken back in another process counts as the one made from the package', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'cl100k-'));
  try {
    const file = path.join(dir, 'table');
    writeFileSync(file, cl100kTableBytes());
    const child = adoptInChild([file]);
    assert.deepEqual(child, { adopted: [true], counts: TEXTS.map(countTokens), same: true });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('bytes that are not a whole table of this layout are refused, and the table is made from the package', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'cl100k-'));
  try {
    const good = Buffer.from(cl100kTableBytes());
    // the layout's int32s (this machine's order): format, tokens, bytes, slots; then starts, ranks, slots
    const tokens = good.readInt32LE(4);
    const changed = (at: number, value: (old: number) => number): Buffer => {
      const bytes = Buffer.from(good);
      bytes.writeInt32LE(value(bytes.readInt32LE(at * 4)), at * 4);
      return bytes;
    };
    const variants: Record<string, Buffer> = {
      cut: good.subarray(0, good.length - 4),
      format: changed(0, (f) => f + 1),
      tokens: changed(1, (t) => t - 1),
      slotsNoPowerOfTwo: changed(3, (n) => n - 2),
      lastStart: changed(4 + tokens, (s) => s - 1),
    };
    const files = Object.entries(variants).map(([name, bytes]) => {
      const file = path.join(dir, name);
      writeFileSync(file, bytes);
      return file;
    });
    const child = adoptInChild(files);
    assert.deepEqual(child.adopted, [false, false, false, false, false]);
    assert.deepEqual(child.counts, TEXTS.map(countTokens));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a kept table with one entry changed on disk is not taken back (its file is checked whole: keptFile.ts)', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'cl100k-'));
  try {
    const file = path.join(dir, 'cl100k.table');
    const stamp = { size: 1234, mtimeMs: 5678 };
    const bytes = cl100kTableBytes();
    writeKept(file, stamp, bytes);
    assert.ok('data' in readKept(file, stamp));
    // a slot past the tokens, far into the file: what adoptCl100kTable no longer looks for entry by entry
    const onDisk = readFileSync(file);
    const slotAt = onDisk.length - bytes.length + (4 + 2 * tokenCount(bytes) + 1 + 7) * 4;
    onDisk.writeInt32LE(tokenCount(bytes) + 1, slotAt);
    writeFileSync(file, onDisk);
    assert.deepEqual(readKept(file, stamp), { why: 'damaged' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** The count of tokens in a table's bytes (its second int32). */
function tokenCount(bytes: Uint8Array): number {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).readInt32LE(4);
}
