import assert from 'node:assert/strict';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { main } from '../../src/cli';
import { indexWorkspace } from '../../src/core/indexer';
import { DEFAULT_SEGMENT_OPTIONS } from '../../src/core/segment';
import { Store } from '../../src/core/store/store';
import { errorReply, messageReply, startFakeAnthropic, type FakeAnthropic } from './anthropicServer';
import { FIXTURES, tempDir } from './helpers';

// `distill --distiller anthropic` end to end: the CLI, the distill stage, the store and the real SDK
// against the local Messages API server. The store is indexed without the offline stage, so every
// exchange is pending.

async function run(args: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { out: (s) => out.push(s), err: (s) => err.push(s) });
  return { code, out, err };
}

const GOOD = JSON.stringify({
  exchange_core: 'Distilled by the local server.',
  specific_context: 'detail',
  room_assignments: [{ room_type: 'workflow', room_key: 'testing', room_label: 'Testing', relevance: 0.5 }],
});

let pending = 0;
const servers: FakeAnthropic[] = [];
const savedEnv = { key: process.env['ANTHROPIC_API_KEY'], url: process.env['ANTHROPIC_BASE_URL'] };

async function freshStore(): Promise<string> {
  const db = path.join(tempDir(), 'llm.sqlite');
  const store = await Store.open(db);
  try {
    const r = await indexWorkspace(store, {
      discover: { workspaceRoots: [], claudeRoots: [], codexRoots: [], extraRoots: [FIXTURES], includeSubagents: true },
      segment: DEFAULT_SEGMENT_OPTIONS,
      distiller: false,
    });
    assert.equal(r.distill, undefined, 'no distill stage ran');
    pending = (await store.stats()).exchanges;
  } finally {
    await store.close();
  }
  return db;
}

function useServer(server: FakeAnthropic): void {
  servers.push(server);
  process.env['ANTHROPIC_API_KEY'] = 'sk-ant-cli-test-000111';
  process.env['ANTHROPIC_BASE_URL'] = server.baseURL;
}

before(() => {
  delete process.env['ANTHROPIC_API_KEY'];
  delete process.env['ANTHROPIC_BASE_URL'];
});
after(async () => {
  await Promise.all(servers.map((s) => s.close()));
  for (const [k, v] of [['ANTHROPIC_API_KEY', savedEnv.key], ['ANTHROPIC_BASE_URL', savedEnv.url]] as const) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

test('distill --distiller anthropic --dry-run: requests, tokens and cost, without a key and without sending', async () => {
  const db = await freshStore();
  assert.ok(pending > 3, `${pending} exchanges pending`);
  const r = await run(['distill', '--db', db, '--distiller', 'anthropic', '--dry-run', '--json', '--price-in', '2', '--price-out', '10']);
  assert.equal(r.code, 0, r.err.join('\n'));
  const plan = JSON.parse(r.out[0]!) as { exchanges: number; requests: number; inputTokens: number; outputTokens: number; costUsd: number; samples: { text: string }[] };
  assert.equal(plan.exchanges, pending);
  assert.equal(plan.requests, pending);
  assert.ok(plan.inputTokens > pending * 300);
  assert.equal(plan.costUsd, (plan.inputTokens * 2 + plan.outputTokens * 10) / 1e6);
  assert.match(plan.samples[0]!.text, /Exchange \(messages \d+-\d+\):/);

  const batched = JSON.parse((await run(['distill', '--db', db, '--distiller', 'anthropic', '--dry-run', '--json', '--batch-size', '4'])).out[0]!) as { requests: number };
  assert.equal(batched.requests, Math.ceil(pending / 4));
  for (const bad of [['--price-in', 'cheap'], ['--batch-size', '0'], ['--concurrency=-2']]) {
    await assert.rejects(run(['distill', '--db', db, '--distiller', 'anthropic', '--dry-run', ...bad]), /price in USD|at least 1/);
  }
  const text = await run(['distill', '--db', db, '--distiller', 'anthropic', '--dry-run']);
  assert.match(text.out[0]!, new RegExp(`^${pending} exchanges -> ${pending} requests to api\\.anthropic\\.com`));
});

test('distill --distiller anthropic without ANTHROPIC_API_KEY is a bad argument naming the fix', async () => {
  const db = await freshStore();
  // main() throws; the program maps a bad-argument error to exit code 2 (see cli.test.ts)
  await assert.rejects(run(['distill', '--db', db, '--distiller', 'anthropic']), (e: Error & { code?: string }) => {
    assert.equal(e.code, 'bad-argument');
    assert.match(e.message, /ANTHROPIC_API_KEY/);
    return true;
  });
});

test('distill --distiller anthropic stores every answer with distiller, model and prompt version; a second run sends nothing', async () => {
  const db = await freshStore();
  const server = await startFakeAnthropic(() => messageReply(GOOD));
  useServer(server);
  const r = await run(['distill', '--db', db, '--distiller', 'anthropic', '--json', '--quiet', '--model', 'claude-test-model']);
  assert.equal(r.code, 0, r.err.join('\n'));
  const report = JSON.parse(r.out[0]!) as { distilled: number; failed: number };
  assert.deepEqual([report.distilled, report.failed], [pending, 0]);
  assert.equal(server.received.length, pending);
  assert.ok(server.received.every((q) => q.body.model === 'claude-test-model' && q.headers['authorization'] === 'Bearer sk-ant-cli-test-000111'));

  const store = await Store.open(db);
  try {
    const rows = await store.db.all<{ distiller: string; model: string; prompt_version: string; n: number }>(
      'SELECT distiller, model, prompt_version, COUNT(*) AS n FROM distilled GROUP BY 1, 2, 3',
    );
    assert.deepEqual(rows, [{ distiller: 'anthropic', model: 'claude-test-model', prompt_version: 'distill-v1', n: pending }]);
  } finally {
    await store.close();
  }
  const again = JSON.parse((await run(['distill', '--db', db, '--distiller', 'anthropic', '--json', '--quiet'])).out[0]!) as { distilled: number };
  assert.equal(again.distilled, 0);
  assert.equal(server.received.length, pending, 'nothing is paid for twice');
});

test('answers that stay invalid are recorded as failures and not asked again before their retry time', async () => {
  const db = await freshStore();
  let healthy = false;
  const server = await startFakeAnthropic((_r, i) =>
    healthy ? messageReply(GOOD) : i === 0 ? errorReply(529, 'overloaded_error', { 'retry-after-ms': '20' }) : messageReply('no json at all'),
  );
  useServer(server);
  const r = await run(['distill', '--db', db, '--distiller', 'anthropic', '--json', '--quiet', '--limit', '2', '--concurrency', '1']);
  assert.equal(r.code, 1, 'failures give exit code 1');
  const report = JSON.parse(r.out[0]!) as { distilled: number; failed: number };
  assert.deepEqual([report.distilled, report.failed], [0, 2]);
  assert.equal(server.received.length, 5, '529 + retry, repair; then the second exchange and its repair');
  const store = await Store.open(db);
  try {
    const f = await store.db.all<{ attempts: number; last_error: string }>('SELECT attempts, last_error FROM distill_failures');
    assert.equal(f.length, 2);
    assert.ok(f.every((x) => x.attempts === 1 && /invalid answer after one repair/.test(x.last_error)));
  } finally {
    await store.close();
  }
  const sent = server.received.length;
  healthy = true;
  const again = JSON.parse((await run(['distill', '--db', db, '--distiller', 'anthropic', '--json', '--quiet', '--limit', '2'])).out[0]!) as { distilled: number };
  assert.equal(again.distilled, 2, 'the next two pending exchanges, not the failed ones');
  assert.equal(server.received.length, sent + 2);
  const failedPrompts = new Set(server.received.slice(0, sent).map((q) => q.body.messages[0]!.content));
  assert.ok(!server.received.slice(sent).some((q) => failedPrompts.has(q.body.messages[0]!.content)), 'a failed exchange is not retried before its time');
});

test('after index (offline objects for everything) the LLM takes them as its backlog: dry run, run, and an offline run does not take them back', async () => {
  const db = path.join(tempDir(), 'upgrade.sqlite');
  assert.equal((await run(['index', '--root', FIXTURES, '--db', db, '--json', '--quiet'])).code, 0);
  const store0 = await Store.open(db);
  const indexed = (await store0.stats()).exchanges;
  await store0.close();
  assert.ok(indexed > 0);

  const plan = JSON.parse((await run(['distill', '--db', db, '--distiller', 'anthropic', '--dry-run', '--json'])).out[0]!) as { exchanges: number };
  assert.equal(plan.exchanges, indexed, 'every offline-distilled exchange is in the plan');

  const server = await startFakeAnthropic(() => messageReply(GOOD));
  useServer(server);
  const r = JSON.parse((await run(['distill', '--db', db, '--distiller', 'anthropic', '--json', '--quiet', '--limit', '3'])).out[0]!) as { distilled: number };
  assert.equal(r.distilled, 3);
  const rest = JSON.parse((await run(['distill', '--db', db, '--distiller', 'anthropic', '--dry-run', '--json'])).out[0]!) as { exchanges: number };
  assert.equal(rest.exchanges, indexed - 3, 'resumable: the upgraded ones are done');
  // the offline distiller never replaces an LLM's object
  const offline = JSON.parse((await run(['distill', '--db', db, '--distiller', 'offline', '--json', '--quiet'])).out[0]!) as { distilled: number };
  assert.equal(offline.distilled, 0);
  const store = await Store.open(db);
  try {
    const rows = await store.db.all<{ distiller: string; n: number }>('SELECT distiller, COUNT(*) AS n FROM distilled GROUP BY 1 ORDER BY 1');
    assert.deepEqual(rows, [{ distiller: 'anthropic', n: 3 }, { distiller: 'offline', n: indexed - 3 }]);
  } finally {
    await store.close();
  }
});
