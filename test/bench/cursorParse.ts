import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { segmentConversation } from '../../src/core/segment';
import { cursorAdapter } from '../../src/core/sources/cursor';
import { readCursorRecords } from '../../src/core/sources/cursorDb';
import { generateCursorDb } from './dbFixtures';

/**
 * Parse speed of Cursor's database. After `tsc -p .`:
 *   node out/test/bench/cursorParse.js [--composers 300] [--bubbles 60] [--runs 3]
 * Generates a WAL database shaped like a heavy user's (every 4th assistant bubble a tool call carrying a
 * 20 KB result and 8 KB of other tool data, 10 KB of composer state), then reads and parses it whole, as an
 * index run does when it changed. Prints the database size and CPU time (user + system) per stage: the
 * machine is shared, so wall-clock time is not reported as the figure.
 */

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { composers: { type: 'string', default: '300' }, bubbles: { type: 'string', default: '60' }, runs: { type: 'string', default: '3' } } });
  const composers = Number(values.composers);
  const bubbles = Number(values.bubbles);
  const dir = mkdtempSync(path.join(tmpdir(), 'cursor-bench-'));
  try {
    const global = path.join(dir, 'User', 'globalStorage');
    mkdirSync(global, { recursive: true });
    const file = path.join(global, 'state.vscdb');
    await generateCursorDb(file, composers, bubbles);
    const size = statSync(file).size + (statSync(`${file}-wal`, { throwIfNoEntry: false })?.size ?? 0);
    console.log(`database: ${composers} composers x ${bubbles} bubbles, ${(size / 1e6).toFixed(1)} MB (with its WAL)`);
    for (let run = 0; run < Number(values.runs); run++) {
      const t0 = process.cpuUsage();
      const lines = await readCursorRecords(file);
      const t1 = process.cpuUsage(t0);
      const out = cursorAdapter.parse({ file, lines });
      const t2 = process.cpuUsage();
      let exchanges = 0;
      for (const c of out.conversations) exchanges += segmentConversation(c, { minChars: 100, maxPlies: 20 }).exchanges.length;
      const t3 = process.cpuUsage(t2);
      const ms = (u: NodeJS.CpuUsage): number => (u.user + u.system) / 1000;
      const parseMs = ms(process.cpuUsage(t0)) - ms(t1) - ms(t3);
      const recordBytes = lines.reduce((n, l) => n + l.bytes, 0);
      console.log(
        `run ${run + 1}: read ${ms(t1).toFixed(0)} ms CPU (${(size / 1e6 / (ms(t1) / 1000)).toFixed(0)} MB/s of database), ` +
          `${lines.length} records ${(recordBytes / 1e6).toFixed(1)} MB; parse ${parseMs.toFixed(0)} ms; segment ${ms(t3).toFixed(0)} ms; ` +
          `${out.conversations.length} conversations, ${exchanges} exchanges`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
