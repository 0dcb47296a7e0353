#!/usr/bin/env node
// CPU time per search of one or more builds, alternating, on one store: what a warm search costs, which the
// machine's load disturbs less than wall time (every figure is user + system of the process, all threads).
//   node test/bench/searchCpu.mjs --builds DIR[,DIR...] --db STORE[,STORE...] --queries A.jsonl[,B.jsonl] [--rounds 4]
//                                 [--passes 5] [--redact] [--words] [--new] [--mcp [--node-flags='--cpu-prof ...']]
// DIR is a built checkout (its out/ from `tsc -p .`, its dist/ from esbuild.mjs); one STORE for all, or one per build
// (a build with another schema reads its own copy of the same history). In process (default): each
// build's Memory and searcher (the built-in model, default mode; --words: none, words only; --redact: snippets
// cut from the redacted text, as MCP and the language-model tools ask), one untimed pass of the queries, then per
// round each build in turn (the order alternating) runs --passes passes of the queries. --new: per round and build
// a fresh searcher (warmed) on the store opened again, then one pass of the queries, none asked of it before (what
// a searcher's reuse of earlier searches' texts does not help). --mcp: per round and
// build a fresh `DIST/cli.js mcp --db STORE --embed-model built-in` server driven by the SDK's client; its first
// search untimed, then the queries once ("new": not asked of that server before) and once more ("asked"), the
// server's CPU read from /proc (--node-flags: the server's node flags, e.g. --cpu-prof --cpu-prof-dir DIR), the new
// pass's first 20 calls also apart from the rest. Prints each round's CPU ms per query and the medians over the rounds.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { machineFacts, median } from './lib.mjs';

const { values } = parseArgs({
  options: {
    builds: { type: 'string' },
    db: { type: 'string' },
    queries: { type: 'string' },
    rounds: { type: 'string', default: '4' },
    passes: { type: 'string', default: '5' },
    redact: { type: 'boolean', default: false },
    words: { type: 'boolean', default: false },
    mcp: { type: 'boolean', default: false },
    'node-flags': { type: 'string', default: '' },
    new: { type: 'boolean', default: false },
  },
});
if (!values.builds || !values.db || !values.queries) {
  console.error('usage: searchCpu.mjs --builds DIR[,DIR...] --db STORE[,STORE...] --queries A.jsonl[,B.jsonl] [--rounds 4] [--passes 5] [--redact] [--words] [--new] [--mcp]');
  process.exit(2);
}
const builds = values.builds.split(',').map((b) => resolve(b));
const dbs = values.db.split(',').map((d) => resolve(d));
const dbOf = (b) => dbs[dbs.length === 1 ? 0 : b];
const queries = values.queries.split(',').flatMap((file) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l).query),
);
const rounds = Number(values.rounds);
/** --mcp: the new pass's first calls, whose CPU it also gives apart (a fresh server's cold code and tables). */
const COLD_CALLS = 20;
const passes = Number(values.passes);
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
/** A process's CPU time (all threads) in ms, from /proc (clock ticks of 10 ms). */
const procCpuMs = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
};

const facts = machineFacts();
console.log(`${values.mcp ? 'MCP server' : 'in process'}, ${facts.cores} cores, node ${facts.node}, ${facts.date}; ${queries.length} queries; store ${dbs.join(', ')}`);
const perBuild = builds.map(() => []);

if (values.mcp) {
  const order = (r) => (r % 2 === 0 ? builds.map((_, i) => i) : builds.map((_, i) => builds.length - 1 - i));
  for (let r = 0; r < rounds; r++) {
    for (const b of order(r)) {
      const client = new Client({ name: 'search-cpu', version: '1.0.0' });
      const transport = new StdioClientTransport({ command: process.execPath, args: [...values['node-flags'].split(' ').filter(Boolean), join(builds[b], 'dist/cli.js'), 'mcp', '--db', dbOf(b), '--embed-model', 'built-in'], stderr: 'ignore' });
      await client.connect(transport);
      const pid = transport.pid ?? transport._process.pid;
      await client.callTool({ name: 'search', arguments: { query: 'warm up' } });
      const figures = {};
      for (const pass of ['new', 'asked']) {
        const t0 = procCpuMs(pid);
        let tCold = t0;
        for (const [i, query] of queries.entries()) {
          if (i === COLD_CALLS) tCold = procCpuMs(pid);
          await client.callTool({ name: 'search', arguments: { query } });
        }
        const t1 = procCpuMs(pid);
        figures[pass] = (t1 - t0) / queries.length;
        // the server's first calls run code V8 has not optimised yet and fill its process-wide tables
        if (pass === 'new' && queries.length > COLD_CALLS) Object.assign(figures, { cold: (tCold - t0) / COLD_CALLS, later: (t1 - tCold) / (queries.length - COLD_CALLS) });
      }
      await client.close();
      perBuild[b].push(figures);
      const split = figures.cold === undefined ? '' : ` (its first ${COLD_CALLS} ${figures.cold.toFixed(2)}, the rest ${figures.later.toFixed(2)})`;
      console.log(`round ${r + 1} ${builds[b]}: new ${figures.new.toFixed(2)} ms${split}, asked ${figures.asked.toFixed(2)} ms per call`);
    }
  }
  for (const [b, xs] of perBuild.entries()) {
    const split = xs[0].cold === undefined ? '' : ` (its first ${COLD_CALLS} ${median(xs.map((x) => x.cold)).toFixed(2)}, the rest ${median(xs.map((x) => x.later)).toFixed(2)})`;
    console.log(`${builds[b]}: median new ${median(xs.map((x) => x.new)).toFixed(2)} [${xs.map((x) => x.new.toFixed(2)).join(', ')}]${split}, asked ${median(xs.map((x) => x.asked)).toFixed(2)} ms per call`);
  }
} else {
  const opened = [];
  for (const [b, build] of builds.entries()) {
    const requireBuild = createRequire(join(build, 'out/src/core/memory.js'));
    const { Memory } = requireBuild('./memory.js');
    const { openEmbedder } = requireBuild('./embed/openEmbedder.js');
    const embedder = values.words ? undefined : (await openEmbedder('built-in', { inThread: true })).embedder;
    /** A warmed searcher on the store opened now (the memory it reads through, to close). */
    const fresh = async () => {
      const memory = await Memory.open(dbOf(b));
      const searcher = memory.searcher(embedder ? { embedder } : {});
      await searcher.warm?.();
      return { memory, searcher };
    };
    const first = await fresh();
    for (const text of queries) await first.searcher.search({ text, redact: values.redact });
    opened.push({ fresh, ...first });
  }
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? opened.map((_, i) => i) : opened.map((_, i) => opened.length - 1 - i);
    for (const b of order) {
      if (values.new) {
        await opened[b].memory.close();
        Object.assign(opened[b], await opened[b].fresh());
      }
      const searcher = opened[b].searcher;
      const count = values.new ? 1 : passes;
      const t0 = cpuMs();
      for (let p = 0; p < count; p++) for (const text of queries) await searcher.search({ text, redact: values.redact });
      const ms = (cpuMs() - t0) / (count * queries.length);
      perBuild[b].push(ms);
      console.log(`round ${r + 1} ${builds[b]}: ${ms.toFixed(2)} ms per query`);
    }
  }
  for (const [b, xs] of perBuild.entries()) console.log(`${builds[b]}: median ${median(xs).toFixed(2)} ms per query [${xs.map((x) => x.toFixed(2)).join(', ')}]`);
}
process.exit(0);
