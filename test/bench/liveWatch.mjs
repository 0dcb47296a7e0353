#!/usr/bin/env node
// Live indexing's watch of one transcript root, on synthetic trees shaped like the big real ones: VS Code's
// workspaceStorage (a folder per workspace ever opened, each extension's state inside, a chatSessions folder in
// some) and OpenCode's data folder (git object stores under snapshot/, a file per message under storage/).
// Compares Node's recursive fs.watch (on Linux: a synchronous walk, one watch per file) with watchFolders
// (src/host/folderWatcher.ts). Prints the longest event-loop stall while the watch starts, the time until it
// watches everything, and how many inotify watches it holds. Run `tsc -p .` first.
// Usage: node test/bench/liveWatch.mjs [--workspaces 300] [--files 20] [--snapshots 20000] [--runs 5]
import { mkdirSync, mkdtempSync, readdirSync, rmSync, watch, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createRequire } from 'node:module';
import { median, table } from './lib.mjs';

const { watchFolders } = createRequire(import.meta.url)('../../out/src/host/folderWatcher.js');
const { values } = parseArgs({ options: { workspaces: { type: 'string' }, files: { type: 'string' }, snapshots: { type: 'string' }, runs: { type: 'string' } } });
const WORKSPACES = Number(values.workspaces ?? 300);
const FILES = Number(values.files ?? 20);
const SNAPSHOTS = Number(values.snapshots ?? 20_000);
const RUNS = Number(values.runs ?? 5);

const base = mkdtempSync(join(tmpdir(), 'agent-recall-watch-bench-'));
const put = (file) => {
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, 'x');
};
const storage = join(base, 'User', 'workspaceStorage');
for (let i = 0; i < WORKSPACES; i++) {
  const ws = join(storage, `ws${i.toString(16).padStart(32, '0')}`);
  for (const f of ['state.vscdb', 'state.vscdb.backup', 'workspace.json']) put(join(ws, f));
  for (const ext of ['ms-python.python', 'vscode.git', 'eamodio.gitlens', 'ms-vscode.cpptools']) {
    for (let j = 0; j < FILES / 4; j++) put(join(ws, ext, `cache-${j}.json`));
  }
  if (i % 5 === 0) put(join(ws, 'chatSessions', `session-${i}.jsonl`));
}
const opencode = join(base, 'opencode');
put(join(opencode, 'opencode.db'));
for (let i = 0; i < SNAPSHOTS; i++) put(join(opencode, 'snapshot', `p${i % 4}`, 'objects', (i % 256).toString(16).padStart(2, '0'), `obj${i}`));
for (let s = 0; s < 50; s++) {
  put(join(opencode, 'storage', 'session', 'p0', `ses_${s}.json`));
  for (let m = 0; m < 20; m++) put(join(opencode, 'storage', 'message', `ses_${s}`, `msg_${m}.json`));
}

const entries = (dir) => readdirSync(dir, { withFileTypes: true }).reduce((n, e) => n + 1 + (e.isDirectory() ? entries(join(dir, e.name)) : 0), 0);

/** One start of a watch: the longest stall of the event loop until it is ready, and the time until then. */
async function once(start) {
  // a 1 ms ticker: the longest gap between its ticks is the longest the loop was held
  let last = performance.now();
  let stall = 0;
  const ticker = setInterval(() => {
    const now = performance.now();
    stall = Math.max(stall, now - last);
    last = now;
  }, 1);
  await new Promise((r) => setTimeout(r, 20));
  stall = 0;
  const t0 = performance.now();
  const { close, ready, watches } = start();
  stall = Math.max(stall, performance.now() - t0);
  await ready;
  const readyMs = performance.now() - t0;
  await new Promise((r) => setTimeout(r, 5));
  clearInterval(ticker);
  const n = watches();
  close();
  return { stall, readyMs, watches: n };
}

const strategies = {
  'fs.watch recursive': (root) => {
    const w = watch(root, { recursive: true }, () => {});
    // Node's Linux walker watches the root and every entry below it
    return { close: () => w.close(), ready: Promise.resolve(), watches: () => 1 + entries(root) };
  },
  watchFolders: (root) => {
    const w = watchFolders(root, { change: () => {}, error: () => {}, gone: () => {} });
    return { close: () => w.close(), ready: w.ready, watches: () => w.folders };
  },
};

const rows = [];
for (const [label, root] of [['workspaceStorage', storage], ['OpenCode data', opencode]]) {
  for (const [name, start] of Object.entries(strategies)) {
    const runs = [];
    for (let i = 0; i < RUNS; i++) runs.push(await once(() => start(root)));
    rows.push({
      root: `${label} (${entries(root)} entries)`,
      watch: name,
      'longest stall ms (median)': median(runs.map((r) => r.stall)),
      'ready ms (median)': median(runs.map((r) => r.readyMs)),
      watches: runs[0].watches,
    });
  }
}
rmSync(base, { recursive: true, force: true });
console.log(`${process.platform} ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${RUNS} runs each\n`);
console.log(table(Object.keys(rows[0]), rows));
