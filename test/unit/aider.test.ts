import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { extractFiles } from '../../src/core/files';
import { stableId } from '../../src/core/ids';
import type { Conversation, ConversationMeta } from '../../src/core/model';
import type { ParseOutput } from '../../src/core/sources/adapter';
import { aiderAdapter } from '../../src/core/sources/aider';
import { type SourceLine, splitLines } from '../../src/core/sources/lines';

const FILE = path.resolve(__dirname, '../../../test/fixtures/aider/.aider.chat.history.md');

function read(): SourceLine[] {
  return splitLines(readFileSync(FILE), 0, 1, { holdBackPartial: false }).lines;
}

function parse(lines: readonly SourceLine[] = read(), resume?: ConversationMeta): ParseOutput {
  return aiderAdapter.parse({ file: FILE, lines, ...(resume ? { resume } : {}) });
}

function shape(conv: Conversation): string[] {
  return conv.messages.map((m) => `${m.kind} ${m.line}-${m.lineEnd}`);
}

function textLines(texts: readonly string[]): SourceLine[] {
  return splitLines(Buffer.from(texts.join('\n')), 0, 1, { holdBackPartial: false }).lines;
}

test('each "aider chat started at" header starts a conversation with a stable id and its local start time', () => {
  const out = parse();
  assert.deepEqual(out.skipped, []);
  assert.deepEqual(
    out.conversations.map((c) => c.meta),
    [
      {
        agent: 'aider',
        sessionId: stableId('aider', '# aider chat started at 2025-03-14 09:12:45'),
        line: 2,
        isSubagent: false,
        startedAt: '2025-03-14T09:12:45',
        model: 'anthropic/claude-sonnet-4-20250514',
      },
      {
        agent: 'aider',
        sessionId: stableId('aider', '# aider chat started at 2025-03-15 17:40:02'),
        line: 43,
        isSubagent: false,
        startedAt: '2025-03-15T17:40:02',
        model: 'ollama_chat/qwen2.5-coder:14b',
      },
    ],
  );
  assert.notEqual(out.conversations[0]!.meta.sessionId, out.conversations[1]!.meta.sessionId);
  const moved = aiderAdapter.parse({ file: '/elsewhere/.aider.chat.history.md', lines: read() });
  assert.deepEqual(moved.conversations[1]!.meta, out.conversations[1]!.meta, 'same bytes, same ids, wherever the file lies');
});

test('first session: prompt lines joined, banner omitted, thinking dropped, fenced #### and > kept as reply', () => {
  const conv = parse().conversations[0]!;
  assert.deepEqual(shape(conv), [
    'prompt 8-9',
    'tool-results 11-12',
    'reply 14-27',
    'tool-results 29-31',
    'prompt 33-33',
    'reply 35-39',
    'tool-results 41-41',
  ]);
  const [prompt, added, reply, applied, second, changelog] = conv.messages;
  assert.equal(prompt!.text, 'The gauge importer drops the last row of every CSV.\nFix it in tidepool/importers/csv_gauge.py.');
  assert.equal(prompt!.offset, read()[7]!.offset);
  assert.equal(prompt!.timestamp, undefined, 'Aider records no per-message times');
  assert.equal(added!.text, '');
  assert.deepEqual(added!.toolResults, [
    { text: "tidepool/importers/csv_gauge.py\nAdd file to the chat? (Y)es/(N)o/(D)on't ask again [Yes]: y", isError: false },
  ]);
  assert.match(reply!.text, /^The loop stops one row early/);
  assert.doesNotMatch(reply!.text, /thinking-content|looks off by one/);
  assert.match(reply!.text, /\n>>>>>>> REPLACE\n```$/);
  assert.equal(
    applied!.toolResults[0]!.text,
    'Tokens: 3.1k sent, 210 received.\nApplied edit to tidepool/importers/csv_gauge.py\nCommit 3f9a2c1 fix: Import the last row of gauge CSV files',
  );
  assert.equal(second!.text, 'Add a changelog entry for it.');
  assert.equal(changelog!.text, 'CHANGELOG.md\n```markdown\n#### Fixed\n> Gauge CSV imports keep their last row.\n```');

  assert.deepEqual(
    extractFiles(conv.messages, {}).filter((f) => f.how === 'edit').map((f) => f.path),
    ['CHANGELOG.md', 'tidepool/importers/csv_gauge.py'],
  );
});

test('second session: errors flagged, confirmation answers are tool output, an architect handoff is context', () => {
  const conv = parse().conversations[1]!;
  assert.deepEqual(shape(conv), [
    'prompt 48-48',
    'tool-results 50-51',
    'reply 53-53',
    'tool-results 55-56',
    'reply 58-58',
    'tool-results 60-60',
    'prompt 62-62',
    'reply 64-64',
    'context 66-66',
    'reply 68-72',
    'tool-results 74-74',
  ]);
  const m = conv.messages;
  assert.equal(m[1]!.toolResults[0]!.isError, true);
  assert.equal(m[3]!.toolResults[0]!.isError, false);
  assert.match(m[3]!.toolResults[0]!.text, /^Add file to the chat\? .*: all\nAdd file to the chat\? .*: a$/);
  assert.equal(m[6]!.text, '/architect make the station list sortable by name');
  assert.equal(m[8]!.text, m[7]!.text);
  assert.deepEqual(
    conv.messages.filter((x) => x.kind === 'prompt').map((x) => x.text),
    ['Why is the tide chart empty for Harbor Point?', '/architect make the station list sortable by name'],
  );
});

test('a resumed parse continues the given session until the next header', () => {
  const first = parse().conversations[0]!;
  const out = parse(read().slice(32), first.meta); // from line 33, the second prompt of session one
  assert.equal(out.conversations.length, 2);
  assert.deepEqual(out.conversations[0]!.meta, first.meta);
  assert.deepEqual(shape(out.conversations[0]!), ['prompt 33-33', 'reply 35-39', 'tool-results 41-41']);
  assert.equal(out.conversations[1]!.meta.line, 43);
});

test('lines before any header without a resume point form a conversation named by its first line', () => {
  const out = parse(read().slice(7, 13)); // lines 8-13: a prompt and tool output, no header
  assert.equal(out.conversations.length, 1);
  const first = '#### The gauge importer drops the last row of every CSV.';
  assert.deepEqual(out.conversations[0]!.meta, { agent: 'aider', sessionId: stableId('aider', 8, first), line: 8, isSubagent: false });
  assert.deepEqual(shape(out.conversations[0]!), ['prompt 8-9', 'tool-results 11-12']);
});

test('matchesPath, sniff and probeProject', () => {
  assert.equal(aiderAdapter.matchesPath('/home/dev/tidepool/.aider.chat.history.md'), true);
  assert.equal(aiderAdapter.matchesPath('C:\\dev\\tidepool\\.aider.chat.history.md'), true);
  assert.equal(aiderAdapter.matchesPath('/home/dev/tidepool/.aider.input.history'), false);
  assert.equal(aiderAdapter.matchesPath('/home/dev/tidepool/aider.chat.history.md'), false);
  assert.equal(aiderAdapter.sniff(read().slice(0, 3)), true);
  assert.equal(aiderAdapter.sniff(textLines(['# Notes', 'plain markdown'])), false);
  assert.equal(aiderAdapter.probeProject(read()), undefined);
});

test('never throws: empty input, sessions without prompts, an unclosed thinking block', () => {
  assert.deepEqual(parse([]).conversations, []);
  const out = parse(
    textLines([
      '# aider chat started at 2025-03-16 08:00:00',
      '> Aider v0.86.1  ',
      '',
      '# aider chat started at 2025-99-99 25:61:00',
      '#### hello  ',
      '<think>',
      'never closed',
      '#### still there?  ',
      'Yes.',
    ]),
  );
  assert.equal(out.conversations.length, 1, 'a session with only its banner has nothing to index');
  const conv = out.conversations[0]!;
  assert.equal(conv.meta.startedAt, undefined, 'an impossible date is not invented');
  assert.deepEqual(shape(conv), ['prompt 5-5', 'prompt 8-8', 'reply 9-9']);
  assert.equal(conv.messages[2]!.text, 'Yes.');
});
