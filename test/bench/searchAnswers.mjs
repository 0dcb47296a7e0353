#!/usr/bin/env node
// Every answer a build's search gives, so that a change meant to leave answers alone can be checked byte for byte:
//   node test/bench/searchAnswers.mjs --build DIR --db STORE --queries A.jsonl[,B.jsonl] [--fresh] > answers.jsonl
// One line per variant and query: {"variant","id","result"}, the result as `search --json` prints it, `tookMs`
// aside. The variants are the CLI's defaults (words only; `--embed-model built-in`: the extension's default), the
// other modes and fusions, and each filter, over the same queries; filters take their values from the store (its
// most common agent, project and touched file, its longest conversation, the median start time), `--exclude` the
// first two hits of the words-only answer; `redact-model` asks for snippets cut from the redacted text (no CLI
// flag: what MCP and the language-model tools ask). In process (the build's compiled Memory, DIR/out from `tsc -p .`): one
// store opened per variant, its queries in order, as one `search` after another in a living process. `--fresh`:
// the two default variants only, one `DIR/dist/cli.js search --json` process per query (first searches, cold).
// Compare two builds with `cmp` on their outputs.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import sqlite3 from '@vscode/sqlite3';
import { readQueries } from './lib.mjs';

const { values } = parseArgs({
  options: { build: { type: 'string' }, db: { type: 'string' }, queries: { type: 'string' }, fresh: { type: 'boolean', default: false } },
});
if (!values.build || !values.db || !values.queries) {
  console.error('usage: searchAnswers.mjs --build DIR --db STORE --queries A.jsonl[,B.jsonl] [--fresh]');
  process.exit(2);
}
const build = resolve(values.build);
const db = resolve(values.db);
const queries = readQueries(values.queries);

/** One row of the store, read with the driver directly (the build under test is not asked). */
function one(sql) {
  return new Promise((ok, fail) => {
    const raw = new sqlite3.Database(db, sqlite3.OPEN_READONLY, (err) => {
      if (err) return fail(err);
      raw.get(sql, (e, row) => raw.close(() => (e ? fail(e) : ok(row))));
    });
  });
}
const agent = (await one('SELECT c.agent AS v FROM exchanges e JOIN conversations c ON c.id = e.conversation_id GROUP BY 1 ORDER BY count(*) DESC LIMIT 1')).v;
const project = (await one('SELECT c.project AS v FROM exchanges e JOIN conversations c ON c.id = e.conversation_id WHERE c.project IS NOT NULL GROUP BY 1 ORDER BY count(*) DESC LIMIT 1')).v;
const file = (await one('SELECT path AS v FROM files_touched GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1')).v;
const conversation = (await one('SELECT conversation_id AS v FROM exchanges GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1')).v;
const since = (await one('SELECT started_at AS v FROM exchanges WHERE started_at IS NOT NULL ORDER BY started_at LIMIT 1 OFFSET (SELECT count(*) / 2 FROM exchanges WHERE started_at IS NOT NULL)')).v;

/** name, CLI arguments, the query's fields as searchCli makes them, and whether the CLI would load a model. */
const BUILTIN = ['--embed-model', 'built-in'];
const VARIANTS = [
  { name: 'words', args: [], query: {} },
  { name: 'default-model', args: BUILTIN, query: {}, model: true },
  { name: 'core/bm25', args: ['--mode', 'core/bm25'], query: { mode: 'core/bm25' } },
  { name: 'all-facets/bm25', args: ['--mode', 'all-facets/bm25'], query: { mode: 'all-facets/bm25' } },
  { name: 'verbatim/vector', args: ['--mode', 'verbatim/vector'], query: { mode: 'verbatim/vector' }, model: true },
  { name: 'core/vector', args: ['--mode', 'core/vector'], query: { mode: 'core/vector' }, model: true },
  { name: '3-signal/rrf', args: ['--mode', '3-signal', '--fusion', 'rrf'], query: { mode: '3-signal', fusion: 'rrf' }, model: true },
  { name: 'vec(v)+bm25(d)/adaptive', args: ['--mode', 'vec(v)+bm25(d)', '--fusion', 'adaptive'], query: { mode: 'vec(v)+bm25(d)', fusion: 'adaptive' }, model: true },
  { name: 'bm25(v)+vec(d)/weighted:0.5', args: ['--mode', 'bm25(v)+vec(d)', '--fusion', 'weighted:0.5'], query: { mode: 'bm25(v)+vec(d)', fusion: 'weighted:0.5' }, model: true },
  { name: 'agent', args: ['--agent', agent], query: { filters: { agents: [agent] } } },
  { name: 'agent-model', args: [...BUILTIN, '--agent', agent], query: { filters: { agents: [agent] } }, model: true },
  { name: 'since', args: ['--since', since], query: { filters: { since } } },
  { name: 'since-core/vector', args: ['--mode', 'core/vector', '--since', since], query: { mode: 'core/vector', filters: { since } }, model: true },
  { name: 'file', args: ['--file', file], query: { filters: { file } } },
  { name: 'project', args: ['--project', project], query: { filters: { project } } },
  { name: 'conversation', args: ['--conversation', conversation], query: { filters: { conversation } } },
  { name: 'per-conversation-1-limit-30', args: ['--per-conversation', '1', '--limit', '30'], query: { perConversation: 1, limit: 30 } },
  { name: 'exclude', args: [], query: {}, exclude: true },
  // what leaves the store (MCP --redact, the language-model tools): snippets cut from the redacted text
  { name: 'redact-model', args: [], query: { redact: true }, model: true },
];

function print(variant, id, result) {
  const { tookMs: _t, ...answer } = result;
  process.stdout.write(`${JSON.stringify({ variant, id, result: answer })}\n`);
}

if (values.fresh) {
  for (const v of VARIANTS.slice(0, 2)) {
    for (const q of queries) {
      const r = spawnSync(process.execPath, [join(build, 'dist/cli.js'), 'search', '--db', db, '--json', ...v.args, '--', q.text], { encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`search ${q.id} (${v.name}) exited ${r.status}: ${r.stderr}`);
      print(v.name, q.id, JSON.parse(r.stdout));
    }
  }
} else {
  const requireBuild = createRequire(join(build, 'out/src/core/memory.js'));
  const { Memory } = requireBuild('./memory.js');
  const { openEmbedder } = requireBuild('./embed/openEmbedder.js');
  const { embedder } = await openEmbedder('built-in', { inThread: true });
  const firstHits = new Map();
  for (const v of VARIANTS) {
    const memory = await Memory.open(db);
    const searcher = memory.searcher(v.model ? { embedder } : {});
    for (const q of queries) {
      const exclude = v.exclude ? { exclude: firstHits.get(q.id) } : {};
      const result = await searcher.search({ ...v.query, ...exclude, text: q.text });
      if (v.name === 'words') firstHits.set(q.id, result.hits.slice(0, 2).map((h) => h.exchangeId));
      print(v.name, q.id, result);
    }
    await memory.close();
  }
  await embedder?.dispose();
}
