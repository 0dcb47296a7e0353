#!/usr/bin/env node
// An index run after a change that makes sources be read again whole, two builds in paired alternating runs
// (issue 41: "nothing re-read that did not change"). Each run starts from a copy of the build's own store of the
// corpus, makes the change, runs `index --embed-model built-in --json` and reports wall and CPU time (the process's,
// from /usr/bin/time) and how many exchanges were written, distilled, counted and embedded again.
//
//   node test/bench/rereadRun.mjs --corpus DIR --a CLI_A --store-a A.sqlite --b CLI_B --store-b B.sqlite
//        [--case touch|gemini|specstory|append] [--file F] [--runs 3] [--work DIR]
//
// touch: every file of the corpus gets a new time, its bytes the same (a sync tool, a restore, a checkout).
// gemini: one turn (a prompt and a reply) added to a Gemini CLI session document, rewritten whole as the CLI
// writes it (JSON, two-space indent); specstory: one turn appended to a SpecStory export. --file: the document (by
// default the corpus's largest of that kind); append: one turn appended to a Claude Code log (a live session: the log
// grew, read from its resume point). The corpus is changed in place (the document is put back after).
// The stores must be of the same corpus (a fresh `index --root DIR --embed-model built-in` by each build).
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const args = process.argv.slice(2);
const opt = (name, fallback) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : fallback);
const corpus = resolve(opt('corpus', '../shared/corpus'));
const builds = [
  { name: 'A', cli: resolve(opt('a')), store: resolve(opt('store-a')) },
  { name: 'B', cli: resolve(opt('b')), store: resolve(opt('store-b')) },
];
const kind = opt('case', 'touch');
const runs = Number(opt('runs', '3'));
const work = resolve(opt('work', join(tmpdir(), `rereadRun-${process.pid}`)));
mkdirSync(work, { recursive: true });

const files = (dir) => readdirSync(dir).flatMap((name) => {
  const full = join(dir, name);
  return statSync(full).isDirectory() ? files(full) : [full];
});
const largest = (test) => files(corpus).filter(test).sort((x, y) => statSync(y).size - statSync(x).size)[0];
const kinds = {
  gemini: (f) => /\/session-[^/]*\.json$/.test(f),
  specstory: (f) => /\.specstory\/history\/.*\.md$/.test(f),
  append: (f) => /\/claude-code[^/]*\/.*\.jsonl$/.test(f) && !f.includes('/subagents/'),
};
const file = kind === 'touch' ? undefined : resolve(opt('file', largest(kinds[kind])));
const original = file ? readFileSync(file) : undefined;

function change() {
  if (kind === 'touch') {
    const when = new Date();
    for (const f of files(corpus)) utimesSync(f, when, when);
    return;
  }
  writeFileSync(file, original); // the state the stores hold, then one turn more
  const stamp = new Date().toISOString();
  if (kind === 'gemini') {
    const doc = JSON.parse(original.toString('utf8'));
    const id = `bench-${Date.now()}`;
    doc.messages.push(
      { id: `${id}-u`, timestamp: stamp, type: 'user', content: 'Check the boot entry once more and tell me which kernel options it passes now.' },
      { id: `${id}-g`, timestamp: stamp, type: 'gemini', content: 'The entry passes `quiet splash rw` and the root UUID; the fallback entry adds `nomodeset`. Nothing else changed since the last edit, so the next boot uses the new options.', thoughts: [], model: 'gemini-3-flash-preview' },
    );
    doc.lastUpdated = stamp;
    writeFileSync(file, JSON.stringify(doc, null, 2));
  } else if (kind === 'append') {
    const last = original.toString('utf8').trimEnd().split('\n').map((l) => { try { return JSON.parse(l); } catch { return {}; } }).findLast((r) => r.sessionId);
    const base = { sessionId: last.sessionId, cwd: last.cwd, version: last.version, gitBranch: last.gitBranch, userType: 'external', isSidechain: false };
    const id = `bench-${Date.now()}`;
    writeFileSync(file, Buffer.concat([original, Buffer.from(
      `${JSON.stringify({ ...base, type: 'user', parentUuid: last.uuid ?? null, uuid: `${id}-u`, timestamp: stamp, message: { role: 'user', content: 'Check the boot entry once more and tell me which kernel options it passes now.' } })}\n` +
      `${JSON.stringify({ ...base, type: 'assistant', parentUuid: `${id}-u`, uuid: `${id}-a`, timestamp: stamp, message: { id: `${id}-m`, type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'text', text: 'The entry passes `quiet splash rw` and the root UUID; the fallback entry adds `nomodeset`. Nothing else changed since the last edit, so the next boot uses the new options.' }] } })}\n`,
    )]));
  } else {
    writeFileSync(file, `${original.toString('utf8').trimEnd()}\n\n---\n\n_**User (${stamp.slice(0, 16).replace('T', ' ')}Z)**_\n\nCheck the undo layers once more and tell me whether the error is gone after the last change.\n\n---\n\n_**Agent (model claude-sonnet-4, mode Agent)**_\n\nThe undo of a layer now restores its pixels and its place in the stack; the error no longer shows when two layers are undone in a row.\n\n---\n`);
  }
}

function index(build, db) {
  const out = join(work, 'report.json');
  const r = spawnSync('/usr/bin/time', ['-f', '%e %U %S %M', '-o', join(work, 'time.txt'), 'node', build.cli, 'index', '--db', db, '--root', corpus, '--embed-model', 'built-in', '--json'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 1 << 28,
  });
  if (r.status !== 0) throw new Error(`index failed: ${r.stderr}`);
  writeFileSync(out, r.stdout);
  const [wall, user, sys, rss] = readFileSync(join(work, 'time.txt'), 'utf8').trim().split(/\s+/).map(Number);
  const rep = JSON.parse(r.stdout);
  return {
    wall, cpu: +(user + sys).toFixed(2), rssMb: Math.round(rss / 1024), parseCpu: rep.stages?.parse?.cpuMs,
    read: rep.parsed, written: rep.exchangesWritten, kept: rep.exchangesKept ?? null, distilled: rep.distill?.distilled ?? 0,
    counted: rep.tokensCounted, embedded: rep.embedded?.embedded?.core ?? 0,
  };
}

// for one document changed, each store first sees the corpus as it is now (every other file's time included)
const bases = builds.map((b) => {
  const base = join(work, `base-${b.name}.sqlite`);
  copyFileSync(b.store, base);
  if (file) {
    writeFileSync(file, original);
    index(b, base);
  }
  return base;
});

const results = { A: [], B: [] };
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
try {
  for (let i = 0; i < runs; i++) {
    const order = i % 2 === 0 ? [0, 1] : [1, 0];
    for (const j of order) {
      const b = builds[j];
      const db = join(work, `run-${b.name}.sqlite`);
      for (const suffix of ['', '-wal', '-shm', '.ledger.json']) rmSync(db + suffix, { force: true });
      copyFileSync(bases[j], db);
      change();
      const r = { load: load(), ...index(b, db) };
      results[b.name].push(r);
      console.log(b.name, JSON.stringify(r));
    }
  }
} finally {
  if (file) writeFileSync(file, original);
}
const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
for (const b of builds) {
  const rs = results[b.name];
  console.log(`${b.name} ${b.cli}: median wall ${median(rs.map((r) => r.wall))} s, CPU ${median(rs.map((r) => r.cpu))} s, parse stage CPU ${median(rs.map((r) => r.parseCpu))} ms; written ${median(rs.map((r) => r.written))}, distilled ${median(rs.map((r) => r.distilled))}, embedded ${median(rs.map((r) => r.embedded))}, counted ${median(rs.map((r) => r.counted))}`);
}
console.log(`case ${kind}${file ? ` (${file}, ${original.length} bytes)` : ''}, ${runs} runs each, alternating`);
