import { mkdtempSync, rmSync, statSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { NEVER_CANCELLED } from '../../src/core/cancellation';
import { OfflineDistiller } from '../../src/core/distill/offline';
import { indexWorkspace } from '../../src/core/indexer';
import { pendingDistillation } from '../../src/core/store/distilledStore';
import { Store } from '../../src/core/store/store';
import { type CheckedExchange, checkHeadlines, DEFECTS, type HeadlineReport } from './headlineDefects';
import { rng } from '../unit/probes';

/**
 * The headline check of issue 39 over a whole store or corpus: how many headlines (distilled cores) have each
 * defect class (headlineDefects.ts), per agent and in all.
 *   node out/test/bench/headlineCheck.js STORE_OR_CORPUS_DIR [--distill] [--samples N] [--seed S] [--show CLASS] [--json]
 * A folder is indexed into a temporary store first (distilled offline by this build). A store is checked as
 * stored; with --distill, this build's offline distiller redoes every offline object in memory (the store is
 * not written) and the samples show the stored headline beside the new one. --show CLASS prints every headline
 * of a class; --samples N prints N seeded random headlines.
 */
async function main(): Promise<void> {
  const target = process.argv[2];
  if (!target || target.startsWith('--')) {
    process.stderr.write('usage: node out/test/bench/headlineCheck.js STORE_OR_CORPUS_DIR [--distill] [--samples N] [--seed S] [--show CLASS] [--json]\n');
    process.exit(2);
  }
  const redistill = process.argv.includes('--distill');
  const samples = numberArg('--samples', 0);
  const seed = numberArg('--seed', 39);
  const show = stringArg('--show');
  const { store, cleanup } = await openTarget(path.resolve(target));
  try {
    const stored = await storedHeadlines(store);
    const current = redistill ? await distilledNow(store, stored) : stored;
    const { report, defects } = checkHeadlines(current);
    const agents = [...new Set(current.map((e) => e.agent))].sort();
    const perAgent = Object.fromEntries(agents.map((a) => [a, checkHeadlines(current.filter((e) => e.agent === a)).report]));
    if (process.argv.includes('--json')) {
      process.stdout.write(`${JSON.stringify({ all: summary(report), perAgent: Object.fromEntries(agents.map((a) => [a, summary(perAgent[a]!)])) })}\n`);
    } else {
      process.stdout.write(table([['all', report], ...agents.map((a) => [a, perAgent[a]!] as const)]));
    }
    if (show) {
      const byId = new Map(stored.map((e) => [e.id, e]));
      for (const e of current) if (defects.get(e.id)?.includes(show as never)) process.stdout.write(`${e.agent.padEnd(12)} ${e.core}${redistill ? `\n${' '.repeat(9)}was ${byId.get(e.id)?.core}` : ''}\n`);
    }
    if (samples > 0) {
      const rand = rng(seed);
      const picked = new Set<number>();
      while (picked.size < Math.min(samples, current.length)) picked.add(Math.floor(rand() * current.length));
      const byId = new Map(stored.map((e) => [e.id, e]));
      process.stdout.write(`\n${samples} headlines (seed ${seed}):\n`);
      for (const i of [...picked].sort((a, b) => a - b)) {
        const e = current[i]!;
        const was = byId.get(e.id)!;
        process.stdout.write(redistill ? `- ${e.agent}: ${was.core}\n  now: ${e.core}\n` : `- ${e.agent}: ${e.core}\n`);
      }
    }
  } finally {
    await store.close();
    cleanup();
  }
}

async function openTarget(target: string): Promise<{ store: Store; cleanup: () => void }> {
  if (!statSync(target).isDirectory()) return { store: await Store.open(target), cleanup: () => {} };
  const dir = mkdtempSync(path.join(os.tmpdir(), 'headline-check-'));
  const store = await Store.open(path.join(dir, 'check.sqlite'));
  await indexWorkspace(store, {
    discover: { workspaceRoots: [], claudeRoots: [], codexRoots: [], extraRoots: [target], includeSubagents: true },
    segment: { minChars: 100, maxPlies: 20 },
  });
  return { store, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

async function storedHeadlines(store: Store): Promise<CheckedExchange[]> {
  return store.db.all<CheckedExchange>(
    `SELECT e.id, c.agent, e.prompt, e.verbatim, d.core, d.context FROM exchanges e
     JOIN conversations c ON c.id = e.conversation_id JOIN distilled d ON d.exchange_n = e.n ORDER BY e.n`,
  );
}

/** This build's offline objects for the stored offline ones (every other distiller's are kept). */
async function distilledNow(store: Store, stored: readonly CheckedExchange[]): Promise<CheckedExchange[]> {
  const inputs = await pendingDistillation(store.db, 10_000_000, 0, Date.now(), { name: 'offline', promptVersion: '\u0000check' });
  const outcomes = await new OfflineDistiller().distill(inputs, NEVER_CANCELLED);
  const fresh = new Map<string, { core: string; context: string }>();
  for (const [i, o] of outcomes.entries()) if (o.ok) fresh.set(inputs[i]!.exchangeId, { core: o.value.exchangeCore, context: o.value.specificContext });
  return stored.map((e) => ({ ...e, ...(fresh.get(e.id) ?? {}) }));
}

function summary(r: HeadlineReport): object {
  return { headlines: r.headlines, counts: r.counts, repeatsWithCopies: r.repeatsWithCopies, noisyDetails: r.noisyDetails };
}

function table(rows: ReadonlyArray<readonly [string, HeadlineReport]>): string {
  const cols = [...DEFECTS, 'any'] as const;
  const pct = (n: number, of: number): string => `${n} (${((100 * n) / Math.max(1, of)).toFixed(1)}%)`;
  const lines = [
    `| agent | headlines | ${cols.join(' | ')} | repeats incl. copies | noisy details |`,
    `| --- | --- | ${cols.map(() => '---').join(' | ')} | --- | --- |`,
    ...rows.map(([name, r]) => `| ${name} | ${r.headlines} | ${cols.map((c) => pct(r.counts[c], r.headlines)).join(' | ')} | ${pct(r.repeatsWithCopies, r.headlines)} | ${pct(r.noisyDetails, r.headlines)} |`),
  ];
  return `${lines.join('\n')}\n`;
}

function numberArg(name: string, fallback: number): number {
  const v = stringArg(name);
  return v === undefined ? fallback : Number(v);
}

function stringArg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
