import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { parsesAsJson, READ_PIECE_BYTES, readLines, type SourceLine, splitLines } from '../../src/core/sources/lines';

/** The lines of `buf` found the plain way: split at each '\n', a BOM off the first, a '\r' off any end. */
function plainLines(buf: Buffer, startOffset: number, startLine: number): SourceLine[] {
  const out: SourceLine[] = [];
  let at = 0;
  while (at < buf.length) {
    const nl = buf.indexOf(0x0a, at);
    const end = nl === -1 ? buf.length : nl;
    let bytes = buf.subarray(at, end);
    if (startOffset + at === 0 && bytes.subarray(0, 3).equals(Buffer.from([0xef, 0xbb, 0xbf]))) bytes = bytes.subarray(3);
    const text = bytes.toString('utf8');
    out.push({ text: text.endsWith('\r') ? text.slice(0, -1) : text, line: startLine + out.length, offset: startOffset + at, bytes: end - at + (nl === -1 ? 0 : 1) });
    at = end + 1;
  }
  return out;
}

test('splitLines: each line as the plain split gives it (a BOM only at the file start, CR, empty lines, UTF-8 of 1-4 bytes, no last newline)', () => {
  const buf = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"a":1}\r\n\n\ufeffnot at the start\né😀 x\r\nlast')]);
  for (const startOffset of [0, 7]) {
    const chunk = splitLines(buf, startOffset, 3, { holdBackPartial: false });
    assert.deepEqual(chunk.lines, plainLines(buf, startOffset, 3));
    assert.equal(chunk.endOffset, startOffset + buf.length);
    assert.equal(chunk.nextLine, 3 + 5);
  }
  // a last line without its newline waits while it does not parse
  const held = splitLines(Buffer.from('{"a":1}\n{"b":'), 0, 1, { holdBackPartial: true, isComplete: parsesAsJson });
  assert.deepEqual(held.lines, [{ text: '{"a":1}', line: 1, offset: 0, bytes: 8 }]);
  assert.equal(held.heldBackPartial, true);
  assert.equal(held.endOffset, 8);
});

test('splitLines: a line past shortenStringsPast has its long strings shortened; a line within it is kept as it is', () => {
  const long = JSON.stringify({ s: 'y'.repeat(100_000) });
  const chunk = splitLines(Buffer.from(`{"s":"short"}\n${long}\n`), 0, 1, { holdBackPartial: false, shortenStringsPast: 1000 });
  assert.equal(chunk.lines[0]!.text, '{"s":"short"}');
  assert.ok(chunk.lines[1]!.text.length < long.length, 'shortened');
  assert.equal(chunk.lines[1]!.bytes, long.length + 1, 'its bytes in the file, all of them');
  assert.equal(chunk.lines[1]!.offset, 14);
});

test('readLines: lines across the pieces a file is read in are the lines of the plain split', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'lines-'));
  try {
    const parts: string[] = [];
    let size = 0;
    for (let i = 0; size < READ_PIECE_BYTES * 2 + 1000; i++) {
      const line = JSON.stringify({ i, t: 'é😀 word '.repeat(1 + (i % 53)) }) + (i % 3 === 0 ? '\r\n' : '\n');
      parts.push(line);
      size += Buffer.byteLength(line);
    }
    const buf = Buffer.from('\ufeff' + parts.join(''));
    const file = path.join(dir, 'big.jsonl');
    writeFileSync(file, buf);
    const handle = await open(file);
    try {
      const { chunk } = await readLines(handle, 0, buf.length, 1, { holdBackPartial: true, isComplete: parsesAsJson });
      assert.deepEqual(chunk.lines, plainLines(buf, 0, 1));
      assert.equal(chunk.endOffset, buf.length);
    } finally {
      await handle.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
