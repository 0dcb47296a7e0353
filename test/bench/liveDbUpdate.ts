import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { indexWorkspace } from '../../src/core/indexer';
import { editorAgentRoots } from '../../src/core/sources/agentRoots';
import { Db } from '../../src/core/store/db';
import { Store } from '../../src/core/store/store';
import { addCursorBubble, addOpenCodeTurn, BENCH_PROJECT, cursorComposerId, generateCursorDb, generateOpenCodeDb, openCodeSessionId } from './dbFixtures';

/**
 * What one live update of an agent's database costs: the index run (read, parse, store, tokens, offline
 * distillation) after Cursor adds one bubble to one of its conversations, or OpenCode one turn to one session.
 * After `tsc -p .`:
 *   node out/test/bench/liveDbUpdate.js [--composers 300] [--bubbles 60] [--sessions 100] [--turns 20] [--runs 5]
 * Prints CPU time (user + system, every thread of the process, SQLite's included) per run and the median: the
 * machine is shared, so wall-clock time is not the figure.
 */

const ms = (u: NodeJS.CpuUsage): number => (u.user + u.system) / 1000;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      composers: { type: 'string', default: '300' }, bubbles: { type: 'string', default: '60' },
      sessions: { type: 'string', default: '100' }, turns: { type: 'string', default: '20' }, runs: { type: 'string', default: '5' },
    },
  });
  const runs = Number(values.runs);
  const dir = mkdtempSync(path.join(tmpdir(), 'live-db-bench-'));
  try {
    const ud = path.join(dir, 'cursor');
    mkdirSync(path.join(ud, 'User', 'globalStorage'), { recursive: true });
    const cursorDb = path.join(ud, 'User', 'globalStorage', 'state.vscdb');
    await generateCursorDb(cursorDb, Number(values.composers), Number(values.bubbles));
    await bench(`Cursor ${values.composers} composers x ${values.bubbles} bubbles`, cursorDb, editorAgentRoots(ud), runs, async (writer, run) => {
      await addCursorBubble(writer, cursorComposerId(run % Number(values.composers)), { bubbleId: `live-${run}`, type: 1, text: `live prompt ${run}: why does the tide chart legend overlap the curve at spring tide?` });
    }, async (writer, run) => {
      // Cursor writes its UI state into the same database all the time
      await writer.run('INSERT INTO ItemTable(key, value) VALUES (?, ?)', [`workbench.panel.state.${run}`, 'x'.repeat(500)]);
    });
    const data = path.join(dir, 'xdg', 'opencode');
    mkdirSync(data, { recursive: true });
    const openCodeDb = path.join(data, 'opencode.db');
    await generateOpenCodeDb(openCodeDb, Number(values.sessions), Number(values.turns));
    await bench(`OpenCode ${values.sessions} sessions x ${values.turns} turns`, openCodeDb, [data], runs, async (writer, run) => {
      await writer.transaction(() => addOpenCodeTurn(writer, openCodeSessionId(run % Number(values.sessions)), `live${run}`, Date.now(), `live prompt ${run} about the harbour gauge offset`, 'the gauge offset is applied after the datum conversion, so the chart shows chart datum heights'));
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `update` adds to one conversation; `idle`, when given, writes the database without changing any conversation. */
async function bench(
  label: string,
  file: string,
  agentRoots: string[],
  runs: number,
  update: (writer: Db, run: number) => Promise<void>,
  idle?: (writer: Db, run: number) => Promise<void>,
): Promise<void> {
  const size = statSync(file).size + (statSync(`${file}-wal`, { throwIfNoEntry: false })?.size ?? 0);
  const store = await Store.open(path.join(path.dirname(file), `bench-store-${path.basename(file)}.sqlite`));
  const writer = await Db.open(file);
  try {
    const options = {
      discover: { workspaceRoots: [BENCH_PROJECT], claudeRoots: [], codexRoots: [], agentRoots, extraRoots: [], includeSubagents: true },
      segment: { minChars: 100, maxPlies: 20 },
    };
    const t0 = process.cpuUsage();
    const first = await indexWorkspace(store, options);
    console.log(`${label}, ${(size / 1e6).toFixed(1)} MB with its WAL: first index ${ms(process.cpuUsage(t0)).toFixed(0)} ms CPU, ${first.exchangesWritten} exchanges`);
    for (const [what, write] of [['update', update], ['no conversation changed', idle]] as const) {
      if (!write) continue;
      const took: number[] = [];
      for (let run = 0; run < runs; run++) {
        await write(writer, run);
        const t = process.cpuUsage();
        const r = await indexWorkspace(store, options);
        took.push(ms(process.cpuUsage(t)));
        if (r.failed.length) throw new Error(JSON.stringify(r.failed));
        console.log(`  ${what} ${run + 1}: ${took[run]!.toFixed(0)} ms CPU; ${r.exchangesWritten} exchanges written, ${r.tokensCounted} token counts, ${r.distill?.distilled ?? 0} distilled`);
      }
      const sorted = [...took].sort((a, b) => a - b);
      console.log(`  ${what}: median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(0)} ms CPU per index run (min ${sorted[0]!.toFixed(0)}, max ${sorted[sorted.length - 1]!.toFixed(0)})`);
    }
  } finally {
    await writer.close();
    await store.close();
  }
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
