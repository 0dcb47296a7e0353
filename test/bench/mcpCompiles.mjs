// What V8 compiles while the MCP server answers warm calls: TurboFan's compiles and deoptimisations, call by call, and
// the server's CPU a call by thread (main, V8's workers and SQLite's pool together), for one or more builds alternating.
//   node test/bench/mcpCompiles.mjs --db STORE.sqlite --queries QUERIES.jsonl [--cli DIST/cli.js] [--db2 STORE --cli2 DIST/cli.js]
//        [--servers 2] [--calls 80] [--top 25] [--json FILE]
// Each server is spawned with --trace-opt --trace-deopt (V8 writes them on stdout, beside the JSON-RPC lines: the
// client here keeps the lines that are no JSON-RPC as the trace of the call under way; `stdbuf -oL` makes V8 write
// whole lines) and asked `search` on --calls queries of the file in turn after a first one, back to back. Printed:
// compiles and deoptimisations by window of calls (1-20, 21-40, ...), the compile time V8 reports (elapsed on its
// worker: inflated at high load, compare builds run in the same minutes), and, with two builds, the functions whose
// compile counts differ most (names are readable from a bundle built without --production's minifying). Linux only
// (/proc, stdbuf). Without the trace flags the same calls' CPU is what mcpLatency.mjs measures.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    db: { type: 'string' },
    queries: { type: 'string' },
    cli: { type: 'string', default: fileURLToPath(new URL('../../dist/cli.js', import.meta.url)) },
    db2: { type: 'string' },
    cli2: { type: 'string' },
    servers: { type: 'string', default: '2' },
    calls: { type: 'string', default: '80' },
    top: { type: 'string', default: '25' },
    json: { type: 'string' },
  },
});
if (!values.db || !values.queries) {
  console.error('usage: node test/bench/mcpCompiles.mjs --db STORE.sqlite --queries QUERIES.jsonl [--cli DIST/cli.js] [--db2 STORE --cli2 DIST/cli.js] [--servers 2] [--calls 80] [--top 25] [--json FILE]');
  process.exit(2);
}
const queries = readFileSync(values.queries, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l).query);
const calls = Number(values.calls);
const WINDOW = 20;
const builds = [{ cli: values.cli, db: values.db }, ...(values.cli2 ? [{ cli: values.cli2, db: values.db2 ?? values.db }] : [])];

/** CPU ms so far of the process's threads: the main thread's and the others' (schedstat, ns). */
function threadCpu(pid) {
  let main = 0;
  let others = 0;
  for (const t of readdirSync(`/proc/${pid}/task`)) {
    try {
      const ns = Number(readFileSync(`/proc/${pid}/task/${t}/schedstat`, 'utf8').split(' ')[0]);
      if (Number(t) === pid) main += ns;
      else others += ns;
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return { main: main / 1e6, others: others / 1e6 };
}

/** One server: its trace lines by call (0: the first search), and each warm call's CPU by thread. */
async function serve(build, offset) {
  const child = spawn('stdbuf', ['-oL', process.execPath, '--trace-opt', '--trace-deopt', build.cli, 'mcp', '--db', build.db, '--embed-model', 'built-in'], {
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  const lines = [];
  let current = 0;
  let buffered = '';
  const waiting = new Map();
  child.stdout.on('data', (chunk) => {
    buffered += chunk.toString('utf8');
    for (let i = buffered.indexOf('\n'); i >= 0; i = buffered.indexOf('\n')) {
      const line = buffered.slice(0, i);
      buffered = buffered.slice(i + 1);
      // a JSON-RPC message may follow a trace line's start that V8 left unended
      const j = line.indexOf('{"');
      let message;
      try {
        message = j >= 0 ? JSON.parse(line.slice(j)) : undefined;
      } catch {
        message = undefined;
      }
      if (message?.jsonrpc) {
        if (j > 0) (lines[current] ??= []).push(line.slice(0, j));
        waiting.get(message.id)?.(message);
      } else (lines[current] ??= []).push(line);
    }
  });
  let id = 0;
  const rpc = (method, params) =>
    new Promise((resolve) => {
      const n = ++id;
      waiting.set(n, resolve);
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: n, method, params })}\n`);
    });
  await rpc('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'mcp-compiles', version: '1.0.0' } });
  child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  const cpu = [];
  for (let c = 0; c <= calls; c++) {
    current = c;
    const before = threadCpu(child.pid);
    const answer = await rpc('tools/call', { name: 'search', arguments: { query: queries[(offset + c) % queries.length] } });
    if (answer.error || answer.result?.isError) throw new Error(`call ${c}: ${JSON.stringify(answer).slice(0, 300)}`);
    const after = threadCpu(child.pid);
    if (c > 0) cpu.push({ main: after.main - before.main, others: after.others - before.others });
  }
  current = calls + 1;
  child.stdin.end();
  await new Promise((resolve) => child.on('exit', resolve));
  return { lines, cpu };
}

const COMPILED = /completed compiling 0x\S+ <JSFunction (\S*) .*took [\d.]+, ([\d.]+), [\d.]+ ms/;
const DEOPT = /bailout \(kind: [^,]+, reason: ([^)]*)\): begin\. deoptimizing 0x\S+ <JSFunction (\S*) /;
const named = (n) => (n.startsWith('(') ? '(anonymous)' : n);

/** A build's servers summed: by window of warm calls, and by function over all warm calls. */
function summarise(runs) {
  const windows = Array.from({ length: Math.ceil(calls / WINDOW) }, () => ({ compiles: 0, compileMs: 0, deopts: 0, main: 0, others: 0 }));
  const functions = {};
  for (const { lines, cpu } of runs) {
    for (let c = 1; c <= calls; c++) {
      const w = windows[Math.floor((c - 1) / WINDOW)];
      w.main += cpu[c - 1].main / runs.length;
      w.others += cpu[c - 1].others / runs.length;
      for (const line of lines[c] ?? []) {
        const compiled = COMPILED.exec(line);
        const deopt = compiled ? undefined : DEOPT.exec(line);
        if (compiled) {
          w.compiles++;
          w.compileMs += Number(compiled[2]);
          const f = (functions[named(compiled[1])] ??= { compiles: 0, compileMs: 0, deopts: 0 });
          f.compiles++;
          f.compileMs += Number(compiled[2]);
        } else if (deopt) {
          w.deopts++;
          (functions[named(deopt[2])] ??= { compiles: 0, compileMs: 0, deopts: 0 }).deopts++;
        }
      }
    }
  }
  for (const w of windows) {
    w.main /= WINDOW;
    w.others /= WINDOW;
  }
  return { windows, functions };
}

const runs = builds.map(() => []);
for (let s = 0; s < Number(values.servers); s++) {
  // the builds alternate, each asked the same queries
  for (const [b, build] of builds.entries()) runs[b].push(await serve(build, Math.floor((s * queries.length) / Number(values.servers))));
}
const summaries = runs.map(summarise);
const fmt = (x) => x.toFixed(1);
for (const [b, build] of builds.entries()) {
  console.log(`${build.cli} on ${build.db}: ${values.servers} servers, ${calls} warm calls each, back to back (load ${readFileSync('/proc/loadavg', 'utf8').split(' ')[0]})`);
  console.log('| warm calls | TurboFan compiles | their time ms (elapsed on V8\'s worker) | deoptimisations | CPU a call ms, main thread | other threads |');
  console.log('| --- | --- | --- | --- | --- | --- |');
  summaries[b].windows.forEach((w, i) =>
    console.log(`| ${i * WINDOW + 1}-${Math.min(calls, (i + 1) * WINDOW)} | ${w.compiles} | ${w.compileMs.toFixed(0)} | ${w.deopts} | ${fmt(w.main)} | ${fmt(w.others)} |`),
  );
}
const top = Number(values.top);
if (summaries.length === 2) {
  const [a, b] = summaries.map((s) => s.functions);
  const names = [...new Set([...Object.keys(a), ...Object.keys(b)])];
  const get = (x, n, k) => x[n]?.[k] ?? 0;
  names.sort((m, n) => Math.abs(get(b, n, 'compileMs') - get(a, n, 'compileMs')) - Math.abs(get(b, m, 'compileMs') - get(a, m, 'compileMs')));
  console.log('| function | compiles, first build | second | compile ms, first | second | deoptimisations, first | second |');
  console.log('| --- | --- | --- | --- | --- | --- | --- |');
  for (const n of names.slice(0, top)) {
    console.log(`| ${n} | ${get(a, n, 'compiles')} | ${get(b, n, 'compiles')} | ${get(a, n, 'compileMs').toFixed(0)} | ${get(b, n, 'compileMs').toFixed(0)} | ${get(a, n, 'deopts')} | ${get(b, n, 'deopts')} |`);
  }
} else {
  const f = summaries[0].functions;
  console.log('| function | compiles | compile ms | deoptimisations |');
  console.log('| --- | --- | --- | --- |');
  for (const [n, x] of Object.entries(f).sort((p, q) => q[1].compileMs - p[1].compileMs).slice(0, top)) {
    console.log(`| ${n} | ${x.compiles} | ${x.compileMs.toFixed(0)} | ${x.deopts} |`);
  }
}
if (values.json) writeFileSync(values.json, JSON.stringify({ builds, servers: Number(values.servers), calls, summaries }, null, 2));
