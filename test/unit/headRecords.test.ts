import assert from 'node:assert/strict';
import { test } from 'node:test';
import { headRecords, parseJsonLine, SkipCounter } from '../../src/core/sources/adapter';
import type { SourceLine } from '../../src/core/sources/lines';

const lines = (texts: readonly string[]): SourceLine[] => texts.map((text, i) => ({ text, line: i + 1, offset: i * 100, bytes: text.length + 1 }));

/** What headRecords gave before it passed lines over: every line through parseJsonLine, the first five objects. */
function parsedEveryLine(head: readonly SourceLine[]): Array<Record<string, unknown>> {
  const scratch = new SkipCounter();
  const out: Array<Record<string, unknown>> = [];
  for (const line of head) {
    const rec = parseJsonLine(line, scratch);
    if (rec && out.push(rec) >= 5) break;
  }
  return out;
}

test('headRecords: the records of a head are parsed once and shared by every sniffer that asks', () => {
  const head = lines(['{"type":"user","cwd":"/w"}', '{"type":"assistant"}']);
  const first = headRecords(head);
  assert.equal(headRecords(head), first, 'the same records, not a second parse');
  assert.deepEqual(first, [{ type: 'user', cwd: '/w' }, { type: 'assistant' }]);
  assert.ok(Object.isFrozen(first), 'shared, so not to be changed by one sniffer for the next');
  assert.notEqual(headRecords(lines(['{"type":"user","cwd":"/w"}', '{"type":"assistant"}'])), first, 'another head is parsed for itself');
});

test('headRecords: a line passed over without JSON.parse is one JSON.parse would not have made an object of', () => {
  // every way a line can start: JSON's whitespace before `{`, other whitespace, a BOM, other values, broken objects
  const starts = ['', ' ', '\t', '\r', '\n', '  \t', '\u00a0', '\ufeff', '\u2028', 'x'];
  const bodies = ['{"a":1}', '{ "b" : [1, {"c": 2}] }', '[{"a":1}]', '"{}"', '1', 'null', 'true', '{', '{"a":', '}', '"key": {"a": 1},', '', '{}'];
  const texts: string[] = [];
  for (const s of starts) for (const b of bodies) for (const end of ['', ' ', '\r', ',']) texts.push(s + b + end);
  let records = 0;
  for (let i = 0; i < texts.length; i++) {
    // each line alone and with the lines after it (the first five objects), as heads of many shapes would be
    const alone = lines([texts[i]!]);
    assert.deepEqual(headRecords(alone), parsedEveryLine(alone), JSON.stringify(texts[i]));
    records += parsedEveryLine(alone).length;
    const run = lines(texts.slice(i, i + 40));
    assert.deepEqual(headRecords(run), parsedEveryLine(run));
  }
  assert.ok(records > 20, 'objects were found too, not only lines passed over');
  const oversized: SourceLine = { text: '', line: 1, offset: 0, bytes: 9e6, oversized: true };
  assert.deepEqual(headRecords([oversized, ...lines(['{"a":1}'])]), [{ a: 1 }]);
});

test('headRecords: the head of a pretty-printed document gives what it gave, and a document of one line its object', () => {
  const doc = { sessionId: 's1', messages: [{ id: 'm1', type: 'user', content: 'hello' }] };
  const pretty = lines(JSON.stringify(doc, null, 2).split('\n'));
  assert.deepEqual(headRecords(pretty), parsedEveryLine(pretty));
  assert.deepEqual(headRecords(lines([JSON.stringify(doc)])), [doc]);
});
