import { rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { NEVER_CANCELLED } from '../../src/core/cancellation';
import { OfflineDistiller } from '../../src/core/distill/offline';
import { distillPending } from '../../src/core/distill/stage';
import { indexWorkspace } from '../../src/core/indexer';
import { pendingDistillation } from '../../src/core/store/distilledStore';
import { Store } from '../../src/core/store/store';
import { rng } from '../unit/probes';

/**
 * Measures the offline distiller on a corpus of real transcripts:
 *   node out/test/bench/distillCorpus.js CORPUS_DIR WORK_DIR [--samples N] [--seed S]
 * Indexes CORPUS_DIR into WORK_DIR/bench.sqlite without distilling, then reports
 * - the distiller alone over every exchange (exchanges/s, document frequencies loaded first),
 * - the whole stage (frequencies + distiller + room resolution + token counts + writes, one transaction a batch),
 * - compression the paper's way (corpus totals, cl100k) and per item, mean distilled tokens,
 * - N random distilled objects (seeded) beside the first lines of their exchanges.
 */
async function main(): Promise<void> {
  const [corpus, work] = process.argv.slice(2);
  if (!corpus || !work) {
    process.stderr.write('usage: node out/test/bench/distillCorpus.js CORPUS_DIR WORK_DIR [--samples N] [--seed S]\n');
    process.exit(2);
  }
  const samples = numberArg('--samples', 15);
  const seed = numberArg('--seed', 4);
  const db = path.join(path.resolve(work), 'bench.sqlite');
  for (const suffix of ['', '-wal', '-shm']) rmSync(db + suffix, { force: true });
  const store = await Store.open(db);
  try {
    const t0 = performance.now();
    await indexWorkspace(store, {
      discover: { workspaceRoots: [], claudeRoots: [], codexRoots: [], extraRoots: [path.resolve(corpus)], includeSubagents: true },
      segment: { minChars: 100, maxPlies: 20 },
      distiller: false,
    });
    const indexMs = performance.now() - t0;

    // the distiller alone, over every exchange, twice (the second run shows the steady state)
    const inputs = await pendingDistillation(store.db, 1_000_000);
    const runs: number[] = [];
    const cpuRuns: number[] = [];
    for (let i = 0; i < 2; i++) {
      const t = performance.now();
      const cpu = process.cpuUsage();
      await new OfflineDistiller().distill(inputs, NEVER_CANCELLED);
      runs.push(performance.now() - t);
      cpuRuns.push(cpuMs(process.cpuUsage(cpu)));
    }

    // the whole stage, as `index` runs it; CPU time (this process, incl. SQLite's worker threads) is less
    // sensitive than wall time to other work on a shared machine
    const stageCpu = process.cpuUsage();
    const stage = await distillPending(store.db, new OfflineDistiller());
    const stageCpuMs = cpuMs(process.cpuUsage(stageCpu));
    const s = await store.stats();
    const rooms = await store.db.all<{ type: string; rooms: number; shared: number }>(
      `SELECT r.type, count(*) AS rooms, sum(c >= 2) AS shared FROM rooms r
       JOIN (SELECT room_id, count(*) AS c FROM exchange_rooms GROUP BY room_id) x ON x.room_id = r.id GROUP BY r.type`,
    );
    const result = {
      corpus: path.resolve(corpus),
      exchanges: s.exchanges,
      indexSeconds: +(indexMs / 1000).toFixed(2),
      distillerOnlyPerSecond: runs.map((ms) => Math.round((inputs.length / ms) * 1000)),
      distillerOnlyPerCpuSecond: cpuRuns.map((ms) => Math.round((inputs.length / ms) * 1000)),
      stage: {
        distilled: stage.distilled,
        failed: stage.failed,
        seconds: +(stage.ms / 1000).toFixed(2),
        perSecond: Math.round((stage.distilled / stage.ms) * 1000),
        cpuSeconds: +(stageCpuMs / 1000).toFixed(2),
        perCpuSecond: Math.round((stage.distilled / stageCpuMs) * 1000),
      },
      loadAverage: os.loadavg().map((x) => +x.toFixed(2)),
      compression: s.compression,
      rooms,
    };
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n\n`);

    const all = await store.db.all<{ n: number; id: string; agent: string; verbatim: string; core: string; context: string; tokens: number; verbatim_tokens: number }>(
      `SELECT e.n, e.id, c.agent, e.verbatim, e.verbatim_tokens, d.core, d.context, d.tokens
       FROM exchanges e JOIN distilled d ON d.exchange_n = e.n JOIN conversations c ON c.id = e.conversation_id ORDER BY e.n`,
    );
    const rand = rng(seed);
    const picked = new Set<number>();
    while (picked.size < Math.min(samples, all.length)) picked.add(Math.floor(rand() * all.length));
    for (const i of [...picked].sort((a, b) => a - b)) {
      const r = all[i]!;
      const d = await store.getDistilled(r.id);
      const head = r.verbatim.split('\n').filter((l) => l.trim()).slice(0, 4).map((l) => `    | ${l.slice(0, 160)}`);
      process.stdout.write(
        [
          `#${r.n} ${r.id.slice(0, 12)} ${r.agent}  verbatim ${r.verbatim_tokens} tokens -> distilled ${r.tokens}`,
          ...head,
          `  core:    ${r.core}`,
          `  context: ${r.context}`,
          `  rooms:   ${(d?.rooms ?? []).map((x) => `${x.type}:${x.label} (${x.relevance})`).join(' | ')}`,
          '',
        ].join('\n') + '\n',
      );
    }
  } finally {
    await store.close();
  }
}

function cpuMs(u: NodeJS.CpuUsage): number {
  return (u.user + u.system) / 1000;
}

function numberArg(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
