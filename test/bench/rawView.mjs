#!/usr/bin/env node
// "Open raw transcript" on a large transcript: the time core's rawView takes to read a JSONL file and write its
// hidden characters out (visible(), src/core/visible.ts), and the two parts apart. The file is synthetic: JSONL
// records of mixed Latin and CJK text, with a line separator and a right-to-left override in one record.
// Prints medians over the runs. Run `tsc -p .` first.
// Usage: node test/bench/rawView.mjs [--mb 30] [--runs 5]
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createRequire } from 'node:module';
import { median, table } from './lib.mjs';

const require = createRequire(import.meta.url);
const { rawView } = require('../../out/src/core/rawView.js');
const { readSideFile } = require('../../out/src/core/sources/lines.js');
const { visible } = require('../../out/src/core/visible.js');
const { values } = parseArgs({ options: { mb: { type: 'string' }, runs: { type: 'string' } } });
const MB = Number(values.mb ?? 30);
const RUNS = Number(values.runs ?? 5);

const dir = mkdtempSync(join(tmpdir(), 'agent-recall-raw-bench-'));
const file = join(dir, 'session.jsonl');
const record = JSON.stringify({ type: 'user', message: { content: 'Fix the rounding in src/cart.js — naïve café 中文 '.repeat(20) } });
const count = Math.floor((MB * 1024 * 1024) / (Buffer.byteLength(record) + 1));
const odd = JSON.stringify({ type: 'assistant', message: { content: 'renamed src/evil\u202Ests.js\u2028done' } });
writeFileSync(file, `${record}\n`.repeat(count - 1) + `${odd}\n`);
try {
  const read = [];
  const shown = [];
  const whole = [];
  for (let i = 0; i < RUNS; i++) {
    let t = performance.now();
    const text = await readSideFile(file, 32 * 1024 * 1024);
    read.push(performance.now() - t);
    t = performance.now();
    visible(text, { lines: true });
    shown.push(performance.now() - t);
    t = performance.now();
    await rawView({ agent: 'claude-code', file, sessionId: 's', lineStart: count, lineEnd: count, byteStart: 0 });
    whole.push(performance.now() - t);
  }
  console.log(`${(statSync(file).size / 1048576).toFixed(1)} MB JSONL, ${RUNS} runs, ${cpus().length} cores, load average ${loadavg()[0].toFixed(1)}`);
  console.log(table(['step', 'median ms'], [
    { step: 'read (readSideFile)', 'median ms': Math.round(median(read)) },
    { step: 'hidden characters (visible)', 'median ms': Math.round(median(shown)) },
    { step: 'rawView, whole', 'median ms': Math.round(median(whole)) },
  ]));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
