import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { cl100kTableBytes } from '../../src/core/cl100kTable';
import { countTokens } from '../../src/core/tokens';
import { KEPT_ALIGNMENT, readKept, writeKept } from '../../src/keptFile';

test('a kept file gives its data back whole, starting aligned in the buffer read (no copy to view it as int32 or as code)', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'kept-'));
  try {
    // headers of every length modulo the alignment: the stamps' digits vary it
    for (let i = 0; i < 2 * KEPT_ALIGNMENT; i++) {
      const file = path.join(dir, `k${i}`);
      const stamp = { size: 10 ** i, mtimeMs: 1_700_000_000_000 + i / 8 };
      const data = Buffer.from(Array.from({ length: 100 + i }, (_, b) => (b * 7 + i) & 255));
      writeKept(file, stamp, data);
      const kept = readKept(file, stamp);
      assert.ok('data' in kept, `${i}: ${JSON.stringify(kept)}`);
      assert.deepEqual(Buffer.from(kept.data), data);
      assert.equal(kept.data.byteOffset % KEPT_ALIGNMENT, 0, `${i}: data at ${kept.data.byteOffset}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the token table taken back from a kept file is viewed where it was read, and counts as the one made', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'kept-'));
  try {
    const file = path.join(dir, 'cl100k.table');
    const stamp = { size: 1, mtimeMs: 2 };
    writeKept(file, stamp, cl100kTableBytes());
    const out = path.resolve(__dirname, '../../src');
    const texts = ['The `tsconfig.json` sets "strict": true.', 'Привет, мир! 数据库连接失败 🙂🚀'];
    const script = `
      const { readKept } = require(${JSON.stringify(path.join(out, 'keptFile.js'))});
      const table = require(${JSON.stringify(path.join(out, 'core/cl100kTable.js'))});
      const { countTokens } = require(${JSON.stringify(path.join(out, 'core/tokens.js'))});
      const kept = readKept(process.argv[1], { size: 1, mtimeMs: 2 });
      const adopted = table.adoptCl100kTable(kept.data);
      const shared = table.cl100k().starts.buffer === kept.data.buffer;
      process.stdout.write(JSON.stringify({ adopted, shared, counts: JSON.parse(process.argv[2]).map(countTokens) }));`;
    const child = JSON.parse(execFileSync(process.execPath, ['-e', script, file, JSON.stringify(texts)], { encoding: 'utf8' })) as unknown;
    assert.deepEqual(child, { adopted: true, shared: true, counts: texts.map(countTokens) });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
