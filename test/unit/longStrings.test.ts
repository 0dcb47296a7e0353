import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_LINE_BYTES, splitLines } from '../../src/core/sources/lines';
import { KEPT_STRING_BYTES, LongStringElider } from '../../src/core/sources/longStrings';

/** The elider's output for `text` fed in pieces of `size` bytes. */
function elide(text: string, size = Infinity): string {
  const bytes = Buffer.from(text, 'utf8');
  const elider = new LongStringElider();
  const out: Buffer[] = [];
  for (let p = 0; p < bytes.length; p += Math.min(size, bytes.length)) out.push(elider.push(bytes.subarray(p, p + size)));
  return Buffer.concat(out).toString('utf8');
}

test('JSON whose strings are all short passes through byte for byte', () => {
  const doc = JSON.stringify([{ role: 'user', text: 'say "hi" \\ \u00e9\u4e2d\ud83d\ude00', n: [1, 2.5, null, true] }, 'x'.repeat(KEPT_STRING_BYTES)]);
  assert.equal(elide(doc), doc);
  assert.equal(elide(doc, 3), doc);
});

test('a long string keeps its head and says how much was left out; the rest of the document is intact', () => {
  const doc = JSON.stringify([{ type: 'image', data: 'A'.repeat(3 * 1024 * 1024) }, { type: 'text', text: 'after the image' }]);
  const value = JSON.parse(elide(doc)) as [{ data: string }, { text: string }];
  // compared by shape: a failing assertion must not print megabytes
  assert.deepEqual(
    [value[0].data.indexOf(' '), /^A+ \[(.+)\]$/.exec(value[0].data)?.[1]],
    [KEPT_STRING_BYTES, '2.9 MB more not read'],
  );
  assert.deepEqual(value[1], { type: 'text', text: 'after the image' });
});

test('the cut never splits an escape or a UTF-8 character, wherever the pieces end', () => {
  // escapes and multi-byte characters at every position around the cut
  const units = ['\\"', '\\\\', '\\u00e9', '\u00e9', '\u4e2d', '\ud83d\ude00', 'a', '\\n'];
  for (let shift = 0; shift < 8; shift++) {
    let body = 'b'.repeat(KEPT_STRING_BYTES - 8 + shift);
    for (let i = 0; i < 40; i++) body += units[(i + shift) % units.length];
    const doc = `{"t":"${body}","after":"\u00e9\\"ok"}`;
    for (const size of [Infinity, 1, 7]) {
      const value = JSON.parse(elide(doc, size)) as { t: string; after: string };
      assert.ok(/ \[\d+ KB more not read\]$/.test(value.t), `shift ${shift}, pieces of ${size}: no marker at the end`);
      assert.ok(!value.t.includes('\ufffd'), 'no broken character');
      assert.equal(value.after, '\u00e9"ok');
    }
  }
});

test('a one-line JSON document over the line bound is read with its long strings cut; still too long, it is skipped', () => {
  const big = JSON.stringify({ messages: [{ text: 'the prompt' }, { image: 'B'.repeat(MAX_LINE_BYTES + 1024) }, { text: 'the reply' }] });
  const [line] = splitLines(Buffer.from(big + '\n'), 0, 1, { holdBackPartial: false, shortenStringsPast: MAX_LINE_BYTES }).lines;
  assert.equal(line!.oversized, undefined);
  assert.equal(line!.bytes, Buffer.byteLength(big) + 1, 'the line keeps its true length in the file');
  const doc = JSON.parse(line!.text) as { messages: { text?: string; image?: string }[] };
  assert.deepEqual(doc.messages.map((m) => m.text), ['the prompt', undefined, 'the reply']);
  assert.deepEqual(/^B+ \[(.+)\]$/.exec(doc.messages[1]!.image!)?.[1], '31.9 MB more not read');
  assert.equal(splitLines(Buffer.from(big + '\n'), 0, 1, { holdBackPartial: false }).lines[0]!.oversized, true, 'only JSON documents are cut');

  const manyShort = JSON.stringify(Array.from({ length: MAX_LINE_BYTES / 1000 + 10 }, () => 'c'.repeat(1000)));
  const [still] = splitLines(Buffer.from(manyShort), 0, 1, { holdBackPartial: false, shortenStringsPast: MAX_LINE_BYTES }).lines;
  assert.deepEqual([still!.oversized, still!.text], [true, '']);
});

test('a JSONL record is cut past the bound its reader is given, and only past it', () => {
  const bound = 200 * 1024;
  const record = (n: number): string => JSON.stringify({ type: 'user', message: { content: [{ data: 'D'.repeat(n) }, { text: 'what the user asked' }] } });
  const lines = splitLines(Buffer.from(`${record(bound - 100)}\n${record(bound + 100)}\n`), 0, 1, { holdBackPartial: false, shortenStringsPast: bound }).lines;
  const docs = lines.map((l) => JSON.parse(l.text) as { message: { content: [{ data: string }, { text: string }] } });
  assert.deepEqual(docs.map((d) => [d.message.content[0].data.length, d.message.content[1].text]), [
    [bound - 100, 'what the user asked'],
    [KEPT_STRING_BYTES + ' [137 KB more not read]'.length, 'what the user asked'],
  ]);
  assert.deepEqual(lines.map((l) => l.bytes), [record(bound - 100).length + 1, record(bound + 100).length + 1]);
});
