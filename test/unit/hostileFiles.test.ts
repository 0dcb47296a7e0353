import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cp, mkdir, open, rm, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { test } from 'node:test';
import { TOO_DEEP } from '../../src/core/boundedJson';
import { indexSources } from '../../src/core/indexer';
import { claudeCodeAdapter } from '../../src/core/sources/claudeCode';
import { discoverSources } from '../../src/core/sources/discover';
import { readHead } from '../../src/core/sources/head';
import { MAX_LINE_BYTES, splitLines } from '../../src/core/sources/lines';
import { Store } from '../../src/core/store/store';
import { FIXTURES, tempDir } from './helpers';

/**
 * Transcripts no agent meant to write, each of which used to cost a whole file or a whole run (issue 18):
 * a file of 2 GiB or more, a line too long to hold, a byte-order mark, a tool input nested thousands of
 * levels deep, and a FIFO or a device where a transcript was, or where an agent keeps a side file.
 */

const segment = { minChars: 50, maxPlies: 20 };

/** A Claude Code prompt and reply about `topic`, as two JSONL lines. */
function exchangeLines(topic: string, n: number): string[] {
  const base = { sessionId: 's1', cwd: '/home/dev/shop', version: '2.0.0' };
  return [
    JSON.stringify({ ...base, type: 'user', uuid: `u${n}`, timestamp: `2025-01-01T00:0${n}:00Z`, message: { role: 'user', content: `Please look into the ${topic} problem of the shop service and fix it.` } }),
    JSON.stringify({ ...base, type: 'assistant', uuid: `a${n}`, timestamp: `2025-01-01T00:0${n}:05Z`, message: { id: `m${n}`, role: 'assistant', content: [{ type: 'text', text: `The ${topic} problem is fixed now; the service checks its input first.` }] } }),
  ];
}

async function indexOne(file: string): Promise<{ store: Store; report: Awaited<ReturnType<typeof indexSources>> }> {
  const store = await Store.open(path.join(path.dirname(file), 'store.sqlite'));
  const report = await indexSources(store, [{ path: file, adapter: claudeCodeAdapter }], segment);
  return { store, report };
}

async function prompts(store: Store): Promise<string[]> {
  return (await store.listExchanges()).map((e) => e.prompt);
}

test('a transcript of more than 2 GiB is read in pieces: the lines around a 2 GiB hole are kept, the hole is one skipped line', { timeout: 120_000 }, async () => {
  const dir = tempDir();
  const file = path.join(dir, 'huge.jsonl');
  const head = exchangeLines('checkout', 1).join('\n') + '\n';
  const tail = '\n' + exchangeLines('refund', 2).join('\n') + '\n';
  const handle = await open(file, 'w');
  await handle.write(head, 0);
  // a sparse hole of zero bytes without a newline: one line of more than 2 GiB
  await handle.write(tail, 2 ** 31 + 4096);
  await handle.close();
  const { store, report } = await indexOne(file);
  try {
    assert.deepEqual(report.failed, []);
    assert.deepEqual((await prompts(store)).sort(), [
      'Please look into the checkout problem of the shop service and fix it.',
      'Please look into the refund problem of the shop service and fix it.',
    ]);
    const stats = await store.stats();
    assert.deepEqual(stats.skippedLines, { 'oversized-line': 1 });
    const after = (await store.listExchanges()).find((e) => e.prompt.includes('refund'))!;
    assert.equal(after.lineStart, 4, 'line numbers count the oversized line');
  } finally {
    await store.close();
  }
});

test('an oversized last line without its newline is skipped and counted, not held back as a partial record', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'long-tail.jsonl');
  const handle = await open(file, 'w');
  // outside any string: nothing to shorten, so no end of the line could make it parse
  await handle.write(exchangeLines('login', 1).join('\n') + '\n{"type":"user","message":', 0);
  await handle.truncate(MAX_LINE_BYTES + 1024 * 1024); // the rest of the last line: zero bytes, no newline
  await handle.close();
  const { store, report } = await indexOne(file);
  try {
    assert.deepEqual(report.failed, []);
    assert.equal((await prompts(store)).length, 1);
    assert.deepEqual((await store.stats()).skippedLines, { 'oversized-line': 1 });
    const src = await store.getSource(file);
    assert.equal(src?.pendingPartial, false);
    assert.equal(src?.parsedOffset, MAX_LINE_BYTES + 1024 * 1024);
  } finally {
    await store.close();
  }
});

/** A Claude Code prompt with a pasted screenshot of `bytes` of base64 before its text, as one JSONL line. */
function screenshotPrompt(bytes: number, text: string): string {
  const image = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0K'.repeat(bytes / 8) } };
  const base = { sessionId: 's1', cwd: '/home/dev/shop', version: '2.0.0' };
  return JSON.stringify({ ...base, type: 'user', uuid: 'u9', timestamp: '2025-01-01T00:09:00Z', message: { role: 'user', content: [image, { type: 'text', text }] } });
}

test('a JSONL record too long to parse (a 12 MB pasted screenshot) is read with the image cut short; its text is indexed, also once its writer finishes it', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'screenshot.jsonl');
  const asked = 'The receipt page on this screenshot still prints the totals twice; please fix the receipt template.';
  const line = screenshotPrompt(12 * 1024 * 1024, asked);
  const reply = JSON.stringify({ sessionId: 's1', cwd: '/home/dev/shop', type: 'assistant', uuid: 'a9', timestamp: '2025-01-01T00:09:05Z', message: { id: 'm9', role: 'assistant', content: [{ type: 'text', text: 'The receipt template rendered the totals partial twice; it renders it once now.' }] } });
  // the writer is half-way through the long line: it waits, as any partial record does
  await writeFile(file, exchangeLines('login', 1).join('\n') + '\n' + line.slice(0, 9 * 1024 * 1024));
  const { store, report } = await indexOne(file);
  try {
    assert.deepEqual(report.failed, []);
    assert.equal((await prompts(store)).length, 1);
    assert.equal((await store.getSource(file))?.pendingPartial, true);
    await writeFile(file, exchangeLines('login', 1).join('\n') + '\n' + line + '\n' + reply + '\n');
    const again = await indexSources(store, [{ path: file, adapter: claudeCodeAdapter }], segment);
    assert.deepEqual(again.failed, []);
    assert.deepEqual((await store.stats()).skippedLines, {});
    const row = (await store.listExchanges()).find((e) => e.prompt.includes('receipt page'));
    assert.ok(row, 'the prompt after the screenshot is indexed');
    assert.match((await store.getExchange(row.exchangeId))!.verbatim, /renders it once now/);
  } finally {
    await store.close();
  }
});

test('a line over the byte bound is never decoded: it comes out as one oversized line with its true length', () => {
  const big = Buffer.alloc(MAX_LINE_BYTES + 10, 0x61);
  const buf = Buffer.concat([Buffer.from('a\n'), big, Buffer.from('\nb\n')]);
  const chunk = splitLines(buf, 0, 1, { holdBackPartial: false });
  assert.deepEqual(
    chunk.lines.map((l) => [l.line, l.text.length, l.bytes, l.oversized ?? false]),
    [[1, 1, 2, false], [2, 0, MAX_LINE_BYTES + 11, true], [3, 1, 2, false]],
  );
});

test('a file that starts with a byte-order mark keeps its first record (a one-exchange file included)', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'bom.jsonl');
  await writeFile(file, '\ufeff' + exchangeLines('payment', 1).join('\n') + '\n');
  assert.equal((await readHead(file))[0]!.text.startsWith('{'), true, 'the head a sniffer sees has no BOM');
  assert.equal(claudeCodeAdapter.sniff(await readHead(file)), true);
  const { store, report } = await indexOne(file);
  try {
    assert.deepEqual(report.failed, []);
    assert.deepEqual(await prompts(store), ['Please look into the payment problem of the shop service and fix it.']);
    assert.deepEqual((await store.stats()).skippedLines, {});
  } finally {
    await store.close();
  }
  // only at the start of the file: a BOM further on is text, the reader's offsets stay byte offsets
  const chunk = splitLines(Buffer.from('\ufeffa\n\ufeffb\n'), 0, 1, { holdBackPartial: false });
  assert.deepEqual(chunk.lines.map((l) => [l.text, l.offset, l.bytes]), [['a', 0, 5], ['\ufeffb', 5, 5]]);
});

test('a tool input nested 6,000 levels deep is cut at a bounded depth; the rest of the file is kept', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'deep.jsonl');
  const depth = 6000;
  const deep = '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
  const [prompt, reply] = exchangeLines('cart', 1);
  const toolLine =
    '{"type":"assistant","uuid":"t1","sessionId":"s1","cwd":"/home/dev/shop","timestamp":"2025-01-01T00:01:10Z",' +
    `"message":{"id":"m9","role":"assistant","content":[{"type":"tool_use","id":"tu1","name":"Edit","input":${deep}}]}}`;
  await writeFile(file, [prompt, reply, toolLine, ...exchangeLines('invoice', 2)].join('\n') + '\n');
  const { store, report } = await indexOne(file);
  try {
    assert.deepEqual(report.failed, []);
    const rows = await store.listExchanges();
    assert.equal(rows.length, 2);
    const first = await store.getExchange(rows.find((r) => r.prompt.includes('cart'))!.exchangeId);
    assert.match(first!.verbatim, /\[tool\] Edit \{"a":\{"a":/);
    assert.ok(first!.verbatim.includes(TOO_DEEP.slice(0, 10)) || first!.verbatim.includes('more chars'));
  } finally {
    await store.close();
  }
});

test('a FIFO or a device where a transcript was is refused at once, never read; the other files are indexed', { timeout: 20_000 }, async () => {
  const dir = tempDir();
  const fifo = path.join(dir, 'was-a-session.jsonl');
  execFileSync('mkfifo', [fifo]);
  const good = path.join(dir, 'good.jsonl');
  await writeFile(good, exchangeLines('shipping', 1).join('\n') + '\n');
  await assert.rejects(readHead(fifo), /not a regular file \(a FIFO\)/);
  const store = await Store.open(path.join(dir, 'store.sqlite'));
  try {
    const report = await indexSources(
      store,
      [fifo, '/dev/zero', good].map((p) => ({ path: p, adapter: claudeCodeAdapter })),
      segment,
    );
    assert.deepEqual(
      report.failed.map((f) => [path.basename(f.path), f.error.slice(f.path.length + 1)]),
      [
        ['was-a-session.jsonl', 'is not a regular file (a FIFO); it is not read.'],
        ['zero', 'is not a regular file (a device); it is not read.'],
      ],
    );
    assert.deepEqual(await prompts(store), ['Please look into the shipping problem of the shop service and fix it.']);
  } finally {
    await store.close();
  }
});

/** Replaces `file` (existing or not) by a FIFO: opening it for reading would wait for a writer forever. */
async function fifoAt(file: string): Promise<void> {
  await rm(file, { force: true });
  await mkdir(path.dirname(file), { recursive: true });
  execFileSync('mkfifo', [file]);
}

test("a FIFO where an agent keeps a side file (Cline's task history, Roo's history item, Copilot's workspace.json, Gemini's .project_root, Continue's session index) is not waited on", { timeout: 20_000 }, async () => {
  const root = tempDir();
  await cp(path.join(FIXTURES, 'cline'), root, { recursive: true });
  await cp(path.join(FIXTURES, 'roo'), root, { recursive: true });
  await cp(path.join(FIXTURES, 'copilot', 'workspaceStorage'), path.join(root, 'workspaceStorage'), { recursive: true });
  const geminiChats = path.join(root, 'gemini', 'tmp', 'tidepool', 'chats');
  await mkdir(geminiChats, { recursive: true });
  await cp(path.join(FIXTURES, 'gemini', 'session-2025-11-02T10-00-5e1f0a2b.json'), path.join(geminiChats, 'session-2025-11-02T10-00-5e1f0a2b.json'));
  await fifoAt(path.join(root, 'saoudrizwan.claude-dev', 'state', 'taskHistory.json'));
  await fifoAt(path.join(root, 'rooveterinaryinc.roo-cline', 'tasks', '0d9e7f3a-2b1c-4e5f-8a9b-7c6d5e4f3a2b', 'history_item.json'));
  await fifoAt(path.join(root, 'workspaceStorage', '7f3e2a', 'workspace.json'));
  await fifoAt(path.join(root, 'gemini', 'tmp', 'tidepool', '.project_root'));
  await cp(path.join(FIXTURES, 'continue', '.continue', 'sessions', '3b9e1f42-6c1d-4f0e-9a57-2d8c4b1e7a90.json'), path.join(root, 'continue', 'sessions', '3b9e1f42-6c1d-4f0e-9a57-2d8c4b1e7a90.json'));
  await fifoAt(path.join(root, 'continue', 'sessions', 'sessions.json'));
  const agentRoots = ['saoudrizwan.claude-dev', 'rooveterinaryinc.roo-cline', 'workspaceStorage', path.join('gemini', 'tmp'), path.join('continue', 'sessions')].map((d) => path.join(root, d));
  const found = await discoverSources({ workspaceRoots: [], claudeRoots: [], codexRoots: [], agentRoots, extraRoots: [], includeSubagents: true });
  // each transcript is still found; a project comes from what else the agent wrote, or stays unknown
  assert.deepEqual(
    found.map((s) => [s.adapter.agent, path.basename(s.path), s.project]),
    [
      ['continue', '3b9e1f42-6c1d-4f0e-9a57-2d8c4b1e7a90.json', '/home/dev/harbour'],
      ['gemini', 'session-2025-11-02T10-00-5e1f0a2b.json', undefined],
      ['roo-code', 'api_conversation_history.json', '/home/dev/gauges'],
      ['cline', 'api_conversation_history.json', '/home/dev/tidepool'],
      ['copilot', 'copilot-session-1.jsonl', undefined],
    ],
  );
  // Continue's parse reads its session index too (the session's start date), synchronously
  const store = await Store.open(path.join(root, 'store.sqlite'));
  try {
    const report = await indexSources(store, found.filter((s) => s.adapter.agent === 'continue'), segment);
    assert.deepEqual(report.failed, []);
    assert.ok((await store.stats()).exchanges > 0);
  } finally {
    await store.close();
  }
});
