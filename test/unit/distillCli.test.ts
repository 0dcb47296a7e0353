import assert from 'node:assert/strict';
import * as path from 'node:path';
import { test } from 'node:test';
import { main } from '../../src/cli';
import { detailItems } from '../../src/core/distill/details';
import { Store } from '../../src/core/store/store';
import { FIXTURES, tempDir } from './helpers';

async function run(args: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { out: (s) => out.push(s), err: (s) => err.push(s) });
  return { code, out, err };
}

async function indexed(): Promise<string> {
  const db = path.join(tempDir(), 'cli.sqlite');
  const r = await run(['index', '--root', FIXTURES, '--db', db, '--json', '--quiet']);
  assert.equal(r.code, 0, r.err.join('\n'));
  const report = JSON.parse(r.out[0]!) as { distill: { distilled: number }; stats: { exchanges: number } };
  assert.equal(report.distill.distilled, report.stats.exchanges, 'index distils every exchange');
  return db;
}

async function forgetDistilled(db: string): Promise<void> {
  const store = await Store.open(db);
  await store.db.run('DELETE FROM distilled');
  await store.close();
}

test('stats --json reports compression the paper way; the human stats prints it', async () => {
  const db = await indexed();
  const stats = JSON.parse((await run(['stats', '--db', db, '--json'])).out[0]!) as {
    exchanges: number;
    compression: { verbatimTokens: number; distilledTokens: number; ratio: number; meanItemRatio: number };
  };
  const c = stats.compression;
  for (const k of ['verbatimTokens', 'distilledTokens', 'ratio', 'meanItemRatio'] as const) assert.equal(typeof c[k], 'number', k);
  assert.ok(c.verbatimTokens > c.distilledTokens && c.distilledTokens > 0);
  assert.equal(c.ratio, +(c.verbatimTokens / c.distilledTokens).toFixed(2));
  const human = (await run(['stats', '--db', db])).out.join('\n');
  assert.match(human, new RegExp(`compression ${c.ratio}x`));
});

test('show --json includes the distilled object and the files touched; show prints them', async () => {
  const db = await indexed();
  const rows = (await run(['list', '--db', db, '--json'])).out.map((l) => JSON.parse(l) as { exchangeId: string });
  for (const r of rows) {
    const ex = JSON.parse((await run(['show', '--db', db, '--json', r.exchangeId])).out[0]!) as Record<string, unknown>;
    for (const k of ['exchangeCore', 'specificContext', 'rooms', 'facets', 'filesTouched']) assert.ok(k in ex, `show --json lacks ${k}`);
    const items = detailItems(ex['specificContext'] as string);
    // a follow-up's line may end with its conversation's title (distill/subject.ts), the one item not of the exchange
    const title = ex['title'] as string | undefined;
    if (title !== undefined && title.startsWith((items.at(-1) ?? '\u0000').replace(/…$/u, ''))) items.pop();
    for (const item of items) assert.ok((ex['verbatim'] as string).includes(item), item);
    assert.ok(Array.isArray(ex['rooms']) && Array.isArray(ex['facets']));
  }
  const shown = (await run(['show', '--db', db, rows[0]!.exchangeId])).out.join('\n');
  assert.match(shown, /^# core: /m);
});

test('distill --distiller offline with --limit, --dry-run writes nothing, bad arguments are clear', async () => {
  const db = await indexed();
  await forgetDistilled(db);
  const dry = await run(['distill', '--db', db, '--distiller', 'offline', '--dry-run', '--limit', '3', '--json']);
  assert.equal(dry.code, 0);
  assert.equal(dry.out.length, 3);
  for (const l of dry.out) assert.ok('exchangeCore' in (JSON.parse(l) as object));
  const afterDry = JSON.parse((await run(['stats', '--db', db, '--json'])).out[0]!) as { compression: { distilled: number } };
  assert.equal(afterDry.compression.distilled, 0, 'a dry run stores nothing');

  const some = JSON.parse((await run(['distill', '--db', db, '--distiller', 'offline', '--limit', '2', '--json', '--quiet'])).out[0]!) as {
    distilled: number;
    compression: { distilled: number };
  };
  assert.equal(some.distilled, 2);
  assert.equal(some.compression.distilled, 2);
  const rest = await run(['distill', '--db', db, '--quiet']);
  assert.equal(rest.code, 0);
  assert.match(rest.out[0]!, /^Distilled \d+ exchanges/);

  await assert.rejects(run(['distill', '--db', db, '--distiller', 'anthropic']), /needs ANTHROPIC_API_KEY/, 'without a key the anthropic distiller says what it needs');
  await assert.rejects(run(['distill', '--db', db, '--distiller', 'gpt']), /Unknown distiller gpt/);
  await assert.rejects(run(['distill', '--db', db, '--limit', '0']), /--limit must be a positive number/);
});
