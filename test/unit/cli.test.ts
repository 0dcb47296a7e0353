import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { main } from '../../src/cli';
import { FIXTURES, tempDir } from './helpers';
import { openFixture } from './searchFixture';

async function run(args: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { out: (s) => out.push(s), err: (s) => err.push(s) });
  return { code, out, err };
}

test('index, list --json, show --json, stats --json and check form the documented contract', async () => {
  const db = path.join(tempDir(), 'cli.sqlite');
  const indexed = await run(['index', '--root', FIXTURES, '--db', db, '--json', '--quiet']);
  assert.equal(indexed.code, 0, indexed.err.join('\n'));
  const report = JSON.parse(indexed.out[0]!) as { parsed: number; stats: { exchanges: number }; mbPerSecond: number };
  assert.ok(report.parsed > 0 && report.stats.exchanges > 0);

  const listed = await run(['list', '--db', db, '--json']);
  const rows = listed.out.map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.equal(rows.length, report.stats.exchanges);
  for (const r of rows) {
    for (const k of ['exchangeId', 'agent', 'file', 'lineStart', 'lineEnd', 'sessionId']) assert.ok(k in r, `list row lacks ${k}`);
    assert.ok(path.isAbsolute(r['file'] as string));
    assert.ok((r['lineStart'] as number) >= 1 && (r['lineEnd'] as number) >= (r['lineStart'] as number));
  }

  const shown = await run(['show', '--db', db, '--json', rows[0]!['exchangeId'] as string]);
  const ex = JSON.parse(shown.out[0]!) as { verbatim: string; exchangeId: string };
  assert.equal(ex.exchangeId, rows[0]!['exchangeId']);
  assert.ok(ex.verbatim.length >= 100);

  const stats = JSON.parse((await run(['stats', '--db', db, '--json'])).out[0]!) as { exchanges: number; skippedLines: object };
  assert.equal(stats.exchanges, rows.length);
  assert.equal((await run(['check', '--db', db])).out[0], 'ok');

  const again = JSON.parse((await run(['index', '--root', FIXTURES, '--db', db, '--json', '--quiet'])).out[0]!) as {
    parsed: number;
    unchanged: number;
  };
  assert.equal(again.parsed, 0, 'nothing re-parsed when nothing changed');
  assert.equal(again.unchanged, report.parsed);
});

test('the bundled CLI runs as a program and reports bad arguments with exit code 2', () => {
  const cli = path.resolve(__dirname, '../../../dist/cli.js');
  const r = spawnSync(process.execPath, [cli, 'list'], { encoding: 'utf8' });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /needs --db FILE/);
  const unknown = spawnSync(process.execPath, [cli, 'frobnicate', '--db', path.join(tempDir(), 'x.sqlite')], { encoding: 'utf8' });
  assert.equal(unknown.status, 2);
  assert.match(unknown.stderr, /Unknown command frobnicate/);
  // asking for help is no mistake: the usage on stdout, exit 0, with or without a command before it
  for (const args of [['--help'], ['-h'], ['index', '--help'], ['search', '-h']]) {
    const help = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8' });
    assert.equal(help.status, 0, `${args.join(' ')}: ${help.stderr}`);
    assert.match(help.stdout, /^Usage: agent-recall <command>/, args.join(' '));
  }
});

test('the bundled CLI compiles the Anthropic SDK only to distil with it, not for every command', () => {
  const cli = path.resolve(__dirname, '../../../dist/cli.js');
  // a preload that lists, as the process exits, every CommonJS module it loaded
  const probe = path.join(tempDir(), 'loaded.js');
  writeFileSync(probe, "process.on('exit', () => process.stderr.write(`\\nloaded ${JSON.stringify(Object.keys(require.cache))}\\n`));");
  const loaded = (args: string[]): string[] => {
    const r = spawnSync(process.execPath, ['-r', probe, cli, ...args], { encoding: 'utf8', env: { ...process.env, ANTHROPIC_API_KEY: '' } });
    return JSON.parse(/^loaded (.*)$/m.exec(r.stderr)?.[1] ?? 'null') as string[];
  };
  const sdk = (files: string[]) => files.some((f) => f.endsWith(path.join('vendor', 'anthropic-sdk.js')));
  assert.equal(sdk(loaded(['list'])), false, 'list (and mcp, search...) start without it');
  assert.equal(sdk(loaded(['distill', '--db', path.join(tempDir(), 'x.sqlite'), '--distiller', 'anthropic'])), true, 'distill --distiller anthropic still finds it');
});

test('the bundled CLI writes all its output to a pipe before it exits, and stops quietly when the reader leaves', async () => {
  // ~200 KB of `list --json`, read only after a pause: the pipe fills, and exiting at once lost the rest
  const exchanges = Array.from({ length: 800 }, (_, i) => ({ key: `x${i}`, text: `User: question ${i} ${'padding '.repeat(20)}\nAssistant: answer ${i}.`, startedAt: '2025-01-01T00:00:00Z' }));
  const fx = await openFixture([{ file: 'many.jsonl', agent: 'claude-code', project: '/p/many', exchanges }]);
  const db = fx.store.db.file;
  await fx.store.close();
  const cli = path.resolve(__dirname, '../../../dist/cli.js');
  const slow = spawnSync('sh', ['-c', `"${process.execPath}" "${cli}" list --db "${db}" --json | (sleep 0.5; wc -l)`], { encoding: 'utf8' });
  assert.equal(slow.stdout.trim(), '800', slow.stderr);
  const head = spawnSync('sh', ['-c', `"${process.execPath}" "${cli}" list --db "${db}" --json | head -1`], { encoding: 'utf8' });
  assert.equal(head.stderr, '', 'no EPIPE stack trace');
  assert.equal(head.stdout.split('\n').filter(Boolean).length, 1);
});

test('a query that starts with "-" follows "--"; without it the unknown option is a bad argument that says so', async () => {
  const db = path.join(tempDir(), 'dash.sqlite');
  assert.equal((await run(['index', '--root', FIXTURES, '--db', db, '--quiet'])).code, 0);
  const cli = path.resolve(__dirname, '../../../dist/cli.js');
  const bare = spawnSync(process.execPath, [cli, 'search', '--db', db, '-d'], { encoding: 'utf8' });
  assert.equal(bare.status, 2, bare.stderr);
  assert.match(bare.stderr, /Unknown option '-d'.*after '--'/);
  const dashed = spawnSync(process.execPath, [cli, 'search', '--db', db, '--json', '--', '-d', '--limit'], { encoding: 'utf8' });
  assert.equal(dashed.status, 0, dashed.stderr);
  assert.ok(Array.isArray((JSON.parse(dashed.stdout) as { hits: unknown }).hits), 'the words after -- were the query, not options');
});

/** Issue 44, item 12: a mistyped root answered "Indexed 0 of 0" with exit code 0, and created a store. */
test('index --root on a folder that does not exist (or a file) is a bad argument, and no store is created', () => {
  const cli = path.resolve(__dirname, '../../../dist/cli.js');
  const dir = tempDir();
  const db = path.join(dir, 'x.sqlite');
  const r = spawnSync(process.execPath, [cli, 'index', '--db', db, '--root', path.join(dir, 'no-such-folder'), '--root', FIXTURES], { encoding: 'utf8' });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /index --root .*no-such-folder: no such folder\./);
  assert.ok(!existsSync(db), 'nothing was indexed, no store made');
  const file = spawnSync(process.execPath, [cli, 'index', '--db', db, '--root', cli], { encoding: 'utf8' });
  assert.equal(file.status, 2);
  assert.match(file.stderr, /index --root .*cli\.js: not a folder\./);
});
