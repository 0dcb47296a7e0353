import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { stableId } from '../../src/core/ids';
import type { Conversation, ConversationMeta } from '../../src/core/model';
import { MAX_LINE_CHARS, type ParseOutput } from '../../src/core/sources/adapter';
import { type SourceLine, splitLines } from '../../src/core/sources/lines';
import { specstoryAdapter } from '../../src/core/sources/specstory';

const DIR = path.resolve(__dirname, '../../../test/fixtures/specstory/.specstory/history');
const AGENT_FILE = path.join(DIR, '2025-10-06_06-24Z-tide-alert-threshold.md');
const OLD_FILE = path.join(DIR, '2025-06-20_08-47-11Z-gauge-csv-import.md');

function read(file: string): SourceLine[] {
  return splitLines(readFileSync(file), 0, 1, { holdBackPartial: false }).lines;
}

function parse(file: string, lines: readonly SourceLine[] = read(file), resume?: ConversationMeta): ParseOutput {
  return specstoryAdapter.parse({ file, lines, ...(resume ? { resume } : {}) });
}

function only(out: ParseOutput): Conversation {
  assert.equal(out.conversations.length, 1);
  return out.conversations[0]!;
}

function shape(conv: Conversation): string[] {
  return conv.messages.map((m) => `${m.kind} ${m.line}-${m.lineEnd}`);
}

function textLines(texts: readonly string[]): SourceLine[] {
  return splitLines(Buffer.from(texts.join('\n')), 0, 1, { holdBackPartial: false }).lines;
}

test('newer export: session id, title and times from the header; one message per marker', () => {
  const out = parse(AGENT_FILE);
  const conv = only(out);
  assert.deepEqual(out.skipped, []);
  assert.deepEqual(conv.meta, {
    agent: 'specstory',
    sessionId: '7d41c9e2-58b0-4f6a-9c13-2e8a4b7f0d55',
    line: 1,
    isSubagent: false,
    title: 'Tide alert threshold fires early',
    startedAt: '2025-10-06T06:24:00.000Z',
    model: 'gpt-5-codex',
  });
  // The trailing agent turn holds only a separator: nothing to keep.
  assert.deepEqual(shape(conv), ['prompt 7-10', 'reply 14-38', 'prompt 42-44', 'reply 48-66']);
  const [first, reply, second] = conv.messages;
  assert.equal(first!.text, 'Alerts for the Harbor Point gauge fire at 1.9 m, but the threshold is 2.0 m.\nCan you find out why?');
  assert.equal(first!.timestamp, '2025-10-06T06:26:00.000Z');
  assert.equal(first!.offset, read(AGENT_FILE)[6]!.offset);
  assert.equal(second!.timestamp, '2025-10-06T06:31:00.000Z');
  assert.equal(reply!.timestamp, undefined, 'this agent marker carries a model, not a time');
});

test('reply bodies: thinking dropped, named tool-use blocks become tool calls, fenced HTML kept', () => {
  const [, reply, , edit] = only(parse(AGENT_FILE)).messages;
  assert.equal(
    reply!.text,
    'Let me search the alert rules for the comparison.\n\n' +
      'The rule in `src/alerts/rules.py` subtracts a 0.1 m tolerance before comparing, so alerts fire early.',
  );
  assert.deepEqual(reply!.toolCalls, [
    { name: 'grep', input: { description: 'Grep for "threshold" in "src/alerts" • 1 match' } },
    { name: 'read_file', input: { path: 'src/alerts/rules.py' } },
  ]);
  assert.deepEqual(edit!.toolCalls, [{ name: 'edit_file', input: { path: 'src/alerts/rules.py' } }]);
  assert.equal(
    edit!.text,
    'Done: alerts now fire at `level >= threshold`. The card markup is:\n\n' +
      '```html\n<details>\n<summary>Harbor Point: 2.0 m</summary>\n</details>\n```',
  );
});

test('older export: no timestamps or session header, details shrink to their summary', () => {
  const conv = only(parse(OLD_FILE));
  assert.deepEqual(conv.meta, {
    agent: 'specstory',
    sessionId: stableId('specstory', '2025-06-20_08-47-11Z-gauge-csv-import.md'),
    line: 1,
    isSubagent: false,
    title: 'Gauge CSV import drops the last row',
    startedAt: '2025-06-20T08:47:11.000Z',
    model: 'copilot/claude-sonnet-4.5',
  });
  assert.deepEqual(shape(conv), ['prompt 5-7', 'reply 11-28', 'prompt 32-34', 'reply 38-40']);
  assert.ok(conv.messages.every((m) => m.timestamp === undefined));
  assert.equal(
    conv.messages[1]!.text,
    'Searched codebase "csv reader last row" • 3 results\n\n' +
      "The loop uses `range(len(rows) - 1)`, which skips the final row. I'll iterate over `rows` directly.\n\n" +
      '[tool] Ran the formatter over the importer',
  );
  assert.deepEqual(conv.messages[1]!.toolCalls, []);
  assert.equal(conv.messages[2]!.text, 'Thanks. Also add a test.');
});

test('Claude Code exports: a summary naming only the tool takes its description from the next line', () => {
  const conv = only(
    parse(
      '/w/.specstory/history/2026-01-12_10-00-00Z-run-tests.md',
      textLines([
        '<!-- Claude Code Session 0b7e2c4f-1a2b-4c3d-8e9f-aabbccddeeff (2026-01-12 10:00:00Z) -->',
        '_**User (2026-01-12 10:00:05Z)**_',
        'run the alert tests',
        '_**Agent (claude-sonnet-4-5 2026-01-12 10:00:09Z)**_',
        '<tool-use data-tool-type="shell" data-tool-name="Bash"><details>',
        '<summary>Tool use: **Bash**</summary>',
        'Run the alert tests',
        '',
        '`uv run pytest tests/test_rules.py -q`',
        '</details></tool-use>',
        '8 passed.',
      ]),
    ),
  );
  assert.equal(conv.meta.sessionId, '0b7e2c4f-1a2b-4c3d-8e9f-aabbccddeeff');
  assert.equal(conv.meta.startedAt, '2026-01-12T10:00:00.000Z');
  assert.equal(conv.meta.model, 'claude-sonnet-4-5');
  assert.equal(conv.meta.title, undefined);
  const reply = conv.messages[1]!;
  assert.equal(reply.timestamp, '2026-01-12T10:00:09.000Z');
  assert.deepEqual(reply.toolCalls, [{ name: 'Bash', input: { description: 'Run the alert tests' } }]);
  assert.equal(reply.text, '8 passed.');
  assert.deepEqual(shape(conv), ['prompt 2-3', 'reply 4-11']);
});

test("a prompt keeps its lines; an empty one is dropped; the model is the first reply marker's that names one", () => {
  const conv = only(
    parse(
      '/w/a.md',
      textLines([
        '# Gauge drift',
        '_**User**_',
        '',
        'first line',
        '  second line',
        '',
        '_**User**_',
        '---',
        '_**Assistant**_',
        'No model here.',
        '_**Agent (model gpt-5, mode Agent)**_',
        'Done.',
        '_**Assistant (copilot/claude-sonnet-4.5)**_',
        'Later.',
      ]),
    ),
  );
  assert.deepEqual(shape(conv), ['prompt 2-5', 'reply 9-10', 'reply 11-12', 'reply 13-14']);
  assert.equal(conv.messages[0]!.text, 'first line\n  second line');
  assert.equal(conv.meta.title, 'Gauge drift');
  assert.equal(conv.meta.model, 'gpt-5');
});

test('the session id is stable across parses and independent of the folder', () => {
  const a = only(parse(OLD_FILE)).meta.sessionId;
  const b = only(parse('/elsewhere/.specstory/history/2025-06-20_08-47-11Z-gauge-csv-import.md', read(OLD_FILE))).meta.sessionId;
  assert.equal(a, b);
  assert.notEqual(a, only(parse('/w/.specstory/history/other.md', read(OLD_FILE))).meta.sessionId);
});

test('a resumed parse continues the conversation it was given', () => {
  const full = only(parse(AGENT_FILE));
  const tail = read(AGENT_FILE).slice(41); // from line 42, the second prompt
  const resumed = only(parse(AGENT_FILE, tail, full.meta));
  assert.deepEqual(resumed.meta, full.meta);
  assert.deepEqual(shape(resumed), ['prompt 42-44', 'reply 48-66']);
  assert.deepEqual(resumed.messages.map((m) => m.uuid), full.messages.slice(2).map((m) => m.uuid), 'the ids a whole-file parse gives');
});

test('matchesPath takes only .specstory/history markdown; sniff and probeProject', () => {
  assert.equal(specstoryAdapter.matchesPath('/w/.specstory/history/2025-10-06_06-24Z-x.md'), true);
  assert.equal(specstoryAdapter.matchesPath('C:\\w\\.specstory\\history\\a.md'), true);
  assert.equal(specstoryAdapter.matchesPath('/w/.specstory/a.md'), false);
  assert.equal(specstoryAdapter.matchesPath('/w/docs/history/a.md'), false);
  assert.equal(specstoryAdapter.matchesPath('/w/.specstory/history/a.json'), false);
  assert.equal(specstoryAdapter.sniff(read(OLD_FILE).slice(0, 6)), true);
  assert.equal(specstoryAdapter.sniff(textLines(['# Notes', 'plain markdown'])), false);
  assert.equal(specstoryAdapter.probeProject(read(AGENT_FILE)), undefined);
});

test('never throws: empty files, markers only, an unclosed block, an oversized line', () => {
  assert.deepEqual(parse('/w/a.md', []).conversations, []);
  assert.deepEqual(parse('/w/a.md', textLines(['_**User**_', '', '---', '_**Assistant**_'])).conversations, []);
  const out = parse(
    '/w/a.md',
    textLines(['_**User**_', 'x'.repeat(MAX_LINE_CHARS + 1), 'why?', '_**Assistant**_', 'Because.', '<tool-use data-tool-name="grep">', '<details>']),
  );
  assert.deepEqual(out.skipped, [{ line: 2, reason: 'oversized-line' }]);
  const conv = only(out);
  assert.deepEqual(shape(conv), ['prompt 1-3', 'reply 4-7']);
  assert.deepEqual(conv.messages[1]!.toolCalls, [{ name: 'grep', input: { description: '' } }]);
  assert.equal(conv.messages[1]!.text, 'Because.');
});
