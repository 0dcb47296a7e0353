#!/usr/bin/env node
// The run thread's part of a first index, alone: every source of a folder is read, parsed and segmented first (not
// timed: the index workers do it), then written as writeSources.ts writes them (groups of 128 KB doubling to 4 MB or
// 64 sources, one write in flight, the lexicon's merges held to the end, then the ledger and the FTS merge) into a fresh store, without the memory map as an
// index run writes. Timed in CPU: this thread's (the kernel's figure in /proc), every other thread's (SQLite's
// statements on libuv's threads, V8's compiler and collector) and the process's; also how many exchanges the
// lexicon's segments wrote in all (each merge writes its segments' exchanges again). Linux only. Run `tsc -p .` first
// (and in the baseline).
//   node test/bench/parseWrites.mjs --build DIR --corpus DIR [--runs 3] [--db FILE]
// Prints one JSON line a run; runs after the first find the write path compiled already.
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { build: { type: 'string' }, corpus: { type: 'string' }, runs: { type: 'string', default: '3' }, db: { type: 'string' } } });
const build = resolve(values.build);
const require = createRequire(import.meta.url);
const core = (path) => require(join(build, 'out/src/core', path));
const { discoverSources } = core('sources/discover.js');
const { readSource } = core('sourceRead.js');
const { prepareSource } = core('prepareSource.js');
const { Store } = core('store/store.js');
const db = values.db ?? join(tmpdir(), `parse-writes-${process.pid}.db`);

const segment = { minChars: 100, maxPlies: 20 };
const sources = await discoverSources({ workspaceRoots: [], claudeRoots: [], codexRoots: [], extraRoots: [resolve(values.corpus)], includeSubagents: true });
const prepared = [];
for (const src of sources) {
  const read = await readSource(src.path, undefined, src.adapter, src.project);
  if (read !== 'unchanged') prepared.push(prepareSource(src.path, src.adapter, segment, read, { project: src.project, within: src.within, keepReplay: false }));
}

/** CPU ms of each thread of this process, by thread id (utime + stime, in clock ticks of 10 ms). */
const threadsCpu = () => {
  const out = new Map();
  for (const tid of readdirSync('/proc/self/task')) {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    out.set(tid, (Number(fields[11]) + Number(fields[12])) * 10);
  }
  return out;
};
/** This thread's CPU ms, to the nanosecond (schedstat's first field). */
const ownCpu = () => Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;

/**
 * Every prepared source written as writeSources.ts groups them, the lexicon's merges held to the end as indexSources
 * holds them (a build before Store.lexiconMergesHeld merged as each group wrote), then the ledger and the FTS merge.
 */
async function writeAll(store) {
  if (store.lexiconMergesHeld) await store.lexiconMergesHeld(() => writeGroups(store));
  else await writeGroups(store);
  await store.writeLedger();
  await store.mergeSearchSegments();
}

async function writeGroups(store) {
  let group = [];
  let groupBytes = 0;
  let groupLimit = 128 * 1024;
  let writing = Promise.resolve();
  for (const p of prepared) {
    group.push(p.write);
    groupBytes += p.bytes;
    if (groupBytes >= groupLimit || group.length >= 64) {
      await writing;
      writing = store.writeParses(group);
      group = [];
      groupBytes = 0;
      groupLimit = Math.min(4 * 1024 * 1024, groupLimit * 2);
    }
  }
  await writing;
  if (group.length > 0) await store.writeParses(group);
}

for (let run = 0; run < Number(values.runs); run++) {
  for (const suffix of ['', '-wal', '-shm']) rmSync(db + suffix, { force: true });
  const store = await Store.open(db);
  // the exchanges each lexicon segment holds, as written (a new group's segment or a merge's)
  let lexiconDocs = 0;
  const get = store.db.get.bind(store.db);
  store.db.get = (sql, params) => {
    if (sql.startsWith('INSERT INTO lexicon_segments')) lexiconDocs += params[0];
    return get(sql, params);
  };
  const threads0 = threadsCpu();
  const own0 = ownCpu();
  const cpu0 = process.cpuUsage();
  const started = performance.now();
  // without the memory map, as an index run reads (Store.unmappedWhile)
  await store.unmappedWhile(() => writeAll(store));
  const cpu = process.cpuUsage(cpu0);
  const own = ownCpu() - own0;
  const threads1 = threadsCpu();
  let others = 0;
  for (const [tid, ms] of threads1) if (tid !== String(process.pid)) others += ms - (threads0.get(tid) ?? 0);
  const exchanges = (await store.stats()).exchanges;
  await store.close();
  console.log(JSON.stringify({
    run: run + 1,
    exchanges,
    lexiconDocsWritten: lexiconDocs,
    threadCpuMs: Math.round(own),
    otherThreadsCpuMs: others,
    processCpuMs: Math.round((cpu.user + cpu.system) / 1000),
    wallMs: Math.round(performance.now() - started),
  }));
}
for (const suffix of ['', '-wal', '-shm']) rmSync(db + suffix, { force: true });
