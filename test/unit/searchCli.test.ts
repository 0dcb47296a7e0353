import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { before, describe, test } from 'node:test';
import { main } from '../../src/cli';
import { firstCorrectRank, metrics, parseEvalQueries } from '../../src/core/eval/metrics';
import { RecallError } from '../../src/core/errors';
import { FIXTURES, tempDir } from './helpers';
import { openFixture } from './searchFixture';

const ROOT = path.resolve(__dirname, '../../..');
const MODEL = path.join(ROOT, '.cache/models/wink-static-100d');

async function run(args: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { out: (s) => out.push(s), err: (s) => err.push(s) });
  return { code, out, err };
}

describe('eval metrics', () => {
  test('MRR, P@1, nDCG@10, Recall@5/10 from first-right ranks, by hand', () => {
    const m = metrics([1, 2, undefined, 11]);
    assert.equal(m.queries, 4);
    assert.ok(Math.abs(m.mrr - (1 + 0.5 + 0 + 1 / 11) / 4) < 1e-12);
    assert.equal(m.p1, 0.25);
    assert.ok(Math.abs(m.ndcg10 - (1 + 1 / Math.log2(3)) / 4) < 1e-12);
    assert.equal(m.recall5, 0.5);
    assert.equal(m.recall10, 0.5);
    assert.deepEqual(metrics([]), { queries: 0, mrr: 0, p1: 0, ndcg10: 0, recall5: 0, recall10: 0 });
  });

  test('a hit is right when its file is a target file and its line range holds the target line; alt targets count', () => {
    const targets = parseEvalQueries(
      JSON.stringify({ qid: 'q1', query: 'x', file: 'a/b.jsonl', line: 20, alt: [{ file: 'a/c.md', line: 5 }] }),
      '/corpus',
    )[0]!.targets;
    assert.deepEqual(targets, [{ file: '/corpus/a/b.jsonl', line: 20 }, { file: '/corpus/a/c.md', line: 5 }]);
    const hit = (file: string, lineStart: number, lineEnd: number) => ({ file, lineStart, lineEnd });
    assert.equal(firstCorrectRank([hit('/corpus/a/b.jsonl', 1, 19), hit('/corpus/a/b.jsonl', 20, 30)], targets), 2);
    assert.equal(firstCorrectRank([hit('/corpus/a/x.jsonl', 1, 99), hit('/corpus/a/c.md', 5, 5)], targets), 2);
    assert.equal(firstCorrectRank([hit('/corpus/a/b.jsonl', 21, 30)], targets), undefined);
  });

  test('bad query lines are refused with their line number', () => {
    assert.throws(() => parseEvalQueries('{"qid":"a","query":"x","file":"f","line":1}\nnot json', '/c'), (e: unknown) => e instanceof RecallError && /line 2/.test(e.message));
    assert.throws(() => parseEvalQueries('{"qid":"a","query":"x","file":"f"}', '/c'), /integer "line"/);
  });
});

describe('CLI: search, batch, eval, embed', () => {
  let dir: string;
  let db: string;

  before(async () => {
    const fx = await openFixture();
    dir = fx.dir;
    db = path.join(dir, 'recall.sqlite');
    await fx.store.close();
  });

  test('search --json returns the SearchResult; plain output explains each hit', async () => {
    const r = await run(['search', '--db', db, '--mode', 'verbatim/bm25', '--json', 'gardening', 'tomatoes']);
    assert.equal(r.code, 0, r.err.join('\n'));
    const result = JSON.parse(r.out[0]!) as { hits: Array<{ file: string; matchedTerms: string[] }>; mode: string };
    assert.equal(result.mode, 'verbatim/bm25');
    assert.equal(result.hits.length, 1);
    assert.equal(result.hits[0]!.file, path.join(dir, 'blog.history.md'));
    const plain = await run(['search', '--db', db, '--mode', 'verbatim/bm25', 'gardening']);
    assert.match(plain.out.join('\n'), /blog\.history\.md:1-9/);
    assert.match(plain.out.join('\n'), /why: bm25\(verbatim\) #1/);
    assert.match(plain.out.join('\n'), /\[gardening\]/);
  });

  test('search filters and bad arguments', async () => {
    const r = await run(['search', '--db', db, '--mode', 'verbatim/bm25', '--agent', 'codex', '--json', '--limit', '5', 'error login']);
    const hits = (JSON.parse(r.out[0]!) as { hits: Array<{ agent: string }> }).hits;
    assert.deepEqual(hits.map((h) => h.agent), ['codex']);
    // the shop conversation's third "login" exchange is left out by the cap of a six-word query; --conversation shows all three
    const capped = await run(['search', '--db', db, '--mode', 'verbatim/bm25', 'login page null pointer broken cookie']);
    const more = /1 more in this conversation: --conversation (\S+)/.exec(capped.out.join('\n'));
    assert.ok(more, capped.out.join('\n'));
    const within = await run(['search', '--db', db, '--mode', 'verbatim/bm25', '--json', '--conversation', more[1]!, 'login']);
    assert.equal((JSON.parse(within.out[0]!) as { hits: unknown[] }).hits.length, 3);
    await assert.rejects(run(['search', '--db', db, '--mode', 'nope', 'x']), /Unknown search mode/);
    await assert.rejects(run(['search', '--db', db, '--fusion', 'weighted:2', 'x']), /Unknown fusion/);
    await assert.rejects(run(['search', '--db', db, '--agent', 'windsurf', 'x']), /Unknown agent/);
    await assert.rejects(run(['search', '--db', db]), /needs a QUERY/);
    await assert.rejects(run(['search', '--db', db, '--limit', '0', 'x']), /at least 1/);
  });

  test('search --batch: one JSON line per query with exactly the contract fields; a bad line is reported, not fatal', async () => {
    const file = path.join(dir, 'batch.jsonl');
    writeFileSync(file, ['{"id":"q1","query":"gardening tomatoes"}', 'not json', '{"id":"q3","query":"duplicate key"}', ''].join('\n'));
    const r = await run(['search', '--db', db, '--batch', file, '--mode', 'verbatim/bm25', '--limit', '3']);
    assert.equal(r.code, 1);
    assert.equal(r.out.length, 3);
    const [first, bad, third] = r.out.map((l) => JSON.parse(l) as { id: string | null; hits: Array<Record<string, unknown>>; error?: string });
    assert.equal(first!.id, 'q1');
    assert.deepEqual(Object.keys(first!), ['id', 'hits']);
    assert.deepEqual(Object.keys(first!.hits[0]!), ['exchangeId', 'agent', 'file', 'lineStart', 'lineEnd', 'sessionId', 'score', 'parts', 'core', 'context']);
    assert.equal(first!.hits[0]!['core'], 'Drafted a gardening blog post about growing tomatoes.');
    assert.equal(first!.hits[0]!['lineStart'], 1);
    assert.deepEqual(bad!.hits, []);
    assert.match(bad!.error ?? '', /line 2/);
    assert.match(r.err.join('\n'), /line 2/);
    assert.equal(third!.id, 'q3');
    assert.equal(third!.hits[0]!['agent'], 'codex');
  });

  test('embed with a model that cannot load: explained, exit 0, store still lexical', async () => {
    const r = await run(['embed', '--db', db, '--embed-model', path.join(dir, 'no-such-model')]);
    assert.equal(r.code, 0);
    assert.match(r.err.join('\n'), /does not exist.*lexical search still works/);
    const s = await run(['search', '--db', db, '--json', 'tomatoes']);
    assert.equal((JSON.parse(s.out[0]!) as { semantic: boolean }).semantic, false);
  });

  test('embed with the local model, then vector search and eval of every mode', async () => {
    const e = await run(['embed', '--db', db, '--embed-model', MODEL, '--embed-layers', 'all']);
    assert.equal(e.code, 0, e.err.join('\n'));
    assert.match(e.out[0]!, /Embedded with local:wink-static-100d \(100-d\): verbatim 6, core 4/);
    const s = await run(['search', '--db', db, '--embed-model', MODEL, '--mode', 'core/vector', '--json', 'vegetable garden']);
    const result = JSON.parse(s.out[0]!) as { semantic: boolean; hits: Array<{ file: string }> };
    assert.equal(result.semantic, true);
    assert.equal(result.hits[0]!.file, path.join(dir, 'blog.history.md'));
    // a model named and no mode: the default with a model, as in the extension and the MCP server
    const named = JSON.parse((await run(['search', '--db', db, '--embed-model', MODEL, '--json', 'vegetable garden'])).out[0]!) as { mode: string; fusion: string; semantic: boolean };
    assert.deepEqual([named.mode, named.fusion, named.semantic], ['bm25(v)+vec(d)', 'selective', true]);
    const unnamed = JSON.parse((await run(['search', '--db', db, '--json', 'vegetable garden'])).out[0]!) as { mode: string; semantic: boolean };
    assert.deepEqual([unnamed.mode, unnamed.semantic], ['verbatim/bm25', false]);

    const queries = path.join(dir, 'queries.jsonl');
    writeFileSync(
      queries,
      [
        { qid: 'q1', query: 'gardening tomatoes', type: 'exact', file: 'blog.history.md', line: 5, alt: [] },
        { qid: 'q2', query: 'null pointer on the login page', type: 'phrase', file: 'shop-session.jsonl', line: 3, alt: [] },
        { qid: 'q3', query: 'zzzz qqqq', type: 'conceptual', file: 'db-session.jsonl', line: 2, alt: [] },
      ].map((q) => JSON.stringify(q)).join('\n'),
    );
    const ev = await run(['eval', '--db', db, '--queries', queries, '--corpus-root', dir, '--mode', 'all', '--fusion', 'rrf,combmnz', '--embed-model', MODEL, '--json']);
    assert.equal(ev.code, 0, ev.err.join('\n'));
    const rows = ev.out.map((l) => JSON.parse(l) as { mode: string; fusion: string; metrics: { mrr: number; p1: number }; byType: Record<string, unknown>; notice?: string });
    // 10 one-signal modes once, 3 cross-layer modes x 2 fusions
    assert.equal(rows.length, 16);
    const bm25 = rows.find((r) => r.mode === 'verbatim/bm25')!;
    assert.ok(Math.abs(bm25.metrics.mrr - 2 / 3) < 1e-9, `MRR ${bm25.metrics.mrr}`);
    assert.ok(Math.abs(bm25.metrics.p1 - 2 / 3) < 1e-9);
    assert.deepEqual(Object.keys(bm25.byType).sort(), ['conceptual', 'exact', 'phrase']);
    assert.ok(rows.every((r) => r.notice === undefined), 'every mode ran with its vectors');
    const table = await run(['eval', '--db', db, '--queries', queries, '--corpus-root', dir, '--mode', 'verbatim/bm25']);
    assert.match(table.out.join('\n'), /MRR\s+P@1\s+nDCG@10\s+R@5\s+R@10/);
    assert.match(table.out.join('\n'), /verbatim\/bm25 .* 0\.667/);
  });

  test('search and eval use the model the store was embedded with; a fallback shows on every row; --strict fails', async () => {
    delete process.env['AGENT_RECALL_EMBED_MODEL'];
    // embedded above with a local folder, recorded by name only: it cannot be found again unnamed
    const s = await run(['search', '--db', db, '--mode', 'core/vector', '--json', 'vegetable garden']);
    const fallback = JSON.parse(s.out[0]!) as { semantic: boolean; notice?: string };
    assert.equal(fallback.semantic, false);
    assert.match(fallback.notice ?? '', /local model folder "wink-static-100d".*--embed-model/);
    const plain = await run(['search', '--db', db, '--mode', 'core/vector', 'vegetable garden']);
    assert.match(plain.out[0]!, /fallback: .*wink-static-100d/);
    const file = path.join(dir, 'fallback.jsonl');
    writeFileSync(file, '{"id":"q1","query":"gardening"}\n{"id":"q2","query":"login"}\n');
    const b = await run(['search', '--db', db, '--batch', file, '--mode', 'core/vector']);
    for (const line of b.out) assert.match((JSON.parse(line) as { fallback?: string }).fallback ?? '', /wink-static-100d/);
    const strictError = (e: unknown) => e instanceof RecallError && e.code === 'model-unavailable' && /--strict: core\/vector could not run as asked/.test(e.message);
    await assert.rejects(run(['search', '--db', db, '--mode', 'core/vector', '--strict', 'vegetable garden']), strictError);
    await assert.rejects(run(['search', '--db', db, '--batch', file, '--mode', 'core/vector', '--strict']), strictError);
    const queries = path.join(dir, 'strict-queries.jsonl');
    writeFileSync(queries, JSON.stringify({ qid: 'q1', query: 'gardening tomatoes', type: 'exact', file: 'blog.history.md', line: 5, alt: [] }));
    await assert.rejects(run(['eval', '--db', db, '--queries', queries, '--corpus-root', dir, '--mode', 'core/vector', '--strict']), strictError);
    // a model that is found by its recorded id is used without being named (here the benchmark encoder)
    const e = await run(['embed', '--db', db, '--embed-model', 'use-lite', '--embed-layers', 'core']);
    assert.equal(e.code, 0, e.err.join('\n'));
    const used = await run(['search', '--db', db, '--mode', 'core/vector', '--strict', '--json', 'vegetable garden']);
    assert.equal(used.code, 0, used.err.join('\n'));
    const result = JSON.parse(used.out[0]!) as { semantic: boolean; notice?: string; hits: Array<{ file: string }> };
    assert.equal(result.semantic, true);
    assert.equal(result.notice, undefined);
    assert.equal(result.hits[0]!.file, path.join(dir, 'blog.history.md'));
  });


  test('index --embed-model runs the embedding stage after indexing; a model that cannot load leaves it lexical', async () => {
    const store = path.join(tempDir(), 'indexed.sqlite');
    const r = await run(['index', '--root', FIXTURES, '--db', store, '--embed-model', MODEL, '--embed-layers', 'verbatim', '--json', '--quiet']);
    assert.equal(r.code, 0, r.err.join('\n'));
    const report = JSON.parse(r.out[0]!) as { stats: { exchanges: number }; embedded: { modelId: string; embedded: { verbatim: number } } };
    assert.equal(report.embedded.modelId, 'local:wink-static-100d');
    assert.equal(report.embedded.embedded.verbatim, report.stats.exchanges);
    const s = await run(['search', '--db', store, '--embed-model', MODEL, '--mode', 'verbatim/vector', '--json', 'login']);
    assert.equal((JSON.parse(s.out[0]!) as { semantic: boolean; hits: unknown[] }).semantic, true);

    const other = path.join(tempDir(), 'lexical.sqlite');
    const bad = await run(['index', '--root', FIXTURES, '--db', other, '--embed-model', '/no/such/model', '--json', '--quiet']);
    assert.equal(bad.code, 0);
    assert.match(bad.err.join('\n'), /the model folder \/no\/such\/model does not exist/);
    assert.equal((JSON.parse(bad.out[0]!) as { embedded?: unknown }).embedded, undefined);
  });

  test('the built-in model: index embeds with it, and search finds it again from what the store recorded', async () => {
    delete process.env['AGENT_RECALL_EMBED_MODEL'];
    const store = path.join(tempDir(), 'builtin.sqlite');
    const r = await run(['index', '--root', FIXTURES, '--db', store, '--embed-model', 'built-in', '--json', '--quiet']);
    assert.equal(r.code, 0, r.err.join('\n'));
    const report = JSON.parse(r.out[0]!) as { stats: { exchanges: number }; embedded: { modelId: string; embedded: { core: number } } };
    assert.equal(report.embedded.modelId, 'built-in:word-vectors-100d-200k@1');
    assert.equal(report.embedded.embedded.core, report.stats.exchanges);
    // a vector mode without --embed-model: the store says which model, and the built-in one needs no folder
    const s = JSON.parse((await run(['search', '--db', store, '--mode', 'core/vector', '--json', 'vegetable garden'])).out[0]!) as { semantic: boolean; notice?: string; hits: unknown[] };
    assert.equal(s.semantic, true, s.notice);
    assert.ok(s.hits.length > 0);
    const named = JSON.parse((await run(['search', '--db', store, '--embed-model', 'built-in', '--json', 'vegetable garden'])).out[0]!) as { mode: string; semantic: boolean };
    assert.deepEqual([named.mode, named.semantic], ['bm25(v)+vec(d)', true]);
  });

  test('distill --embed-model embeds the distilled layer after distilling', async () => {
    const store = path.join(tempDir(), 'distilled.sqlite');
    assert.equal((await run(['index', '--root', FIXTURES, '--db', store, '--quiet'])).code, 0);
    const r = await run(['distill', '--db', store, '--embed-model', MODEL, '--json', '--quiet']);
    assert.equal(r.code, 0, r.err.join('\n'));
    const report = JSON.parse(r.out[0]!) as { embedded: { embedded: { core: number } }; compression: { distilled: number } };
    assert.ok(report.compression.distilled > 0);
    assert.equal(report.embedded.embedded.core, report.compression.distilled);
  });
});
