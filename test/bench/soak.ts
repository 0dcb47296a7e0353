import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { Store } from '../../src/core/store/store';
import { appendMidLine, cleanContents, copyTree, fuzzCopy, indexRoot, rng, runCli, storeContents } from '../unit/probes';

/**
 * The reliability soak (issue 18): the unit probes, long and on any corpus. After `tsc -p .`:
 *   node out/test/bench/soak.js --corpus ../shared/corpus [--kills 40] [--appends 10] [--steps 8]
 *     [--fuzz 5] [--fraction 0.2] [--seed 1]
 * kill -9 at random points while the bundled CLI indexes, each run given the work of a whole run (then check
 * after each kill, and a last run to the end compared with a clean index); appends ending mid-line (each round cuts every file at new random offsets); fuzzed lines
 * (each round mutates a new sample, then indexes it in steps against a clean index). Prints one line per
 * probe with its trial counts; exits 1 when any trial differed.
 */

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      corpus: { type: 'string' },
      kills: { type: 'string', default: '40' },
      appends: { type: 'string', default: '10' },
      steps: { type: 'string', default: '8' },
      fuzz: { type: 'string', default: '5' },
      fraction: { type: 'string', default: '0.2' },
      seed: { type: 'string', default: '1' },
      cli: { type: 'string', default: path.resolve(__dirname, '../../../dist/cli.js') },
    },
  });
  if (!values.corpus) throw new Error('soak needs --corpus DIR');
  const corpus = path.resolve(values.corpus);
  const random = rng(Number(values.seed));
  const work = mkdtempSync(path.join(tmpdir(), 'recall-soak-'));
  let bad = 0;
  try {
    // kill -9 while indexing: before each run every source is marked stale, so each run re-reads everything
    // and a kill within the measured length of a whole run lands while it works (without that, runs after
    // the first had nothing to do). The files stay whole: cut apart, two files holding the same conversation
    // would differ in which of them holds a duplicated exchange (see docs/architecture.md, Duplicates), whatever the kills.
    const root = path.join(work, 'kill-root');
    copyTree(corpus, root);
    const expected = await cleanContents(root, work);
    const db = path.join(work, 'killed.sqlite');
    let killed = 0;
    let checksOk = 0;
    const kills = Number(values.kills);
    const t0 = Date.now();
    const full = await runCli(values.cli!, ['index', '--root', root, '--db', path.join(work, 'timing.sqlite'), '--quiet']);
    const fullMs = Date.now() - t0;
    if (full.code !== 0) throw new Error(`index failed: ${full.stderr}`);
    for (let i = 0; i < kills; i++) {
      if (i > 0) await markStale(db);
      const r = await runCli(values.cli!, ['index', '--root', root, '--db', db, '--quiet'], Math.floor((0.05 + random() * 0.9) * fullMs));
      if (r.signal === 'SIGKILL') killed++;
      if ((await runCli(values.cli!, ['check', '--db', db])).code === 0) checksOk++;
    }
    await runCli(values.cli!, ['index', '--root', root, '--db', db, '--quiet']);
    const store = await Store.open(db);
    const same = JSON.stringify(await storeContents(store, root)) === JSON.stringify(expected);
    await store.close();
    if (!same || checksOk < kills) bad++;
    console.log(
      `kill -9: ${kills} runs of ~${(fullMs / 1000).toFixed(1)} s each, ${killed} killed mid-run, check ok after ${checksOk}; ` +
        `final store ${same ? 'equals' : 'DIFFERS FROM'} a clean index (${expected.length} rows)`,
    );

    // appends ending mid-line
    const lineCorpus = path.join(work, 'lines');
    copyTree(corpus, lineCorpus, true);
    const lineExpected = await cleanContents(lineCorpus, work);
    let appendSame = 0;
    let runs = 0;
    const appends = Number(values.appends);
    for (let i = 0; i < appends; i++) {
      const s = await Store.open(path.join(work, `append-${i}.sqlite`));
      const r = await appendMidLine(lineCorpus, path.join(work, `append-root-${i}`), s, Number(values.steps), random);
      await s.close();
      runs += r.runs;
      if (JSON.stringify(r.contents) === JSON.stringify(lineExpected)) appendSame++;
      rmSync(path.join(work, `append-root-${i}`), { recursive: true, force: true });
    }
    if (appendSame < appends) bad++;
    console.log(`appends ending mid-line: ${appends} rounds, ${runs} index runs; ${appendSame} of ${appends} equal a clean index`);

    // fuzzed lines
    let fuzzSame = 0;
    let mutated = 0;
    let failed = 0;
    const fuzzRounds = Number(values.fuzz);
    for (let i = 0; i < fuzzRounds; i++) {
      const fuzzed = path.join(work, `fuzzed-${i}`);
      mutated += fuzzCopy(lineCorpus, fuzzed, Number(values.fraction), random);
      const clean = await Store.open(path.join(work, `fuzz-clean-${i}.sqlite`));
      failed += (await indexRoot(clean, fuzzed)).failed;
      const expectedFuzz = await storeContents(clean, fuzzed);
      await clean.close();
      const s = await Store.open(path.join(work, `fuzz-stepped-${i}.sqlite`));
      const r = await appendMidLine(fuzzed, path.join(work, `fuzz-root-${i}`), s, 4, random);
      await s.close();
      if (JSON.stringify(r.contents) === JSON.stringify(expectedFuzz)) fuzzSame++;
      rmSync(fuzzed, { recursive: true, force: true });
      rmSync(path.join(work, `fuzz-root-${i}`), { recursive: true, force: true });
    }
    if (fuzzSame < fuzzRounds || failed > 0) bad++;
    console.log(`fuzzed lines: ${mutated} lines mutated over ${fuzzRounds} rounds; ${failed} files failed; ${fuzzSame} of ${fuzzRounds} stepped indexes equal a clean one`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return bad === 0 ? 0 : 1;
}

/** Every source re-read whole by the next run (what a rebuild does), nothing deleted. */
async function markStale(db: string): Promise<void> {
  const store = await Store.open(db);
  await store.markAllSourcesStale();
  await store.close();
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(2);
  },
);
