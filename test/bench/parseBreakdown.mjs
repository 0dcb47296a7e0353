#!/usr/bin/env node
// The parse stage's own work by kind (issue 41), on one thread, each kind run in bulk over every source of a folder:
// reading (readSource: lines, hashes), the floor's JSON.parse of the same records alone, each reader's parse (by
// agent and format, JSON.parse of its records included), segmenting (with rendering and files touched), then
// rendering the verbatim and the files touched again alone on the same exchanges, and each exchange's index text
// (ftsFields alone beside it). Timed in this thread's CPU (the kernel's figure in /proc: Linux only), pass by pass:
// the first pass is cold (V8 compiles as it goes, as in an index worker, which prepares each source once), the later
// ones warm. What it leaves out is measured elsewhere: the run thread's writes (parseWrites.mjs), every thread of a
// whole first index (indexRun.mjs, a `perf record` of it). Run `tsc -p .` first (and in the baseline).
//   node test/bench/parseBreakdown.mjs --build DIR --corpus DIR [--passes 3]
// Prints a markdown table: one row per kind, one column per pass, CPU ms.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { table } from './lib.mjs';

const { values } = parseArgs({ options: { build: { type: 'string', default: '.' }, corpus: { type: 'string' }, passes: { type: 'string', default: '3' } } });
const require = createRequire(import.meta.url);
const core = (path) => require(join(resolve(values.build), 'out/src/core', path));
const { discoverSources } = core('sources/discover.js');
const { readSource } = core('sourceRead.js');
const segmentModule = core('segment.js');
const renderModule = core('render.js');
const filesModule = core('files.js');
const { indexText } = core('indexText.js');
const { ftsFields } = core('store/ftsText.js');

/** This thread's CPU ms, to the nanosecond (schedstat's first field). */
const ownCpu = () => Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
const segment = { minChars: 100, maxPlies: 20 };
const sources = await discoverSources({ workspaceRoots: [], claudeRoots: [], codexRoots: [], extraRoots: [resolve(values.corpus)], includeSubagents: true });
const byReader = new Map();
for (const [i, s] of sources.entries()) byReader.set(`${s.adapter.agent} (${s.adapter.lineFormat})`, [...(byReader.get(`${s.adapter.agent} (${s.adapter.lineFormat})`) ?? []), i]);

const rows = new Map();
const timed = async (pass, kind, work) => {
  const t = ownCpu();
  const out = await work();
  (rows.get(kind) ?? rows.set(kind, []).get(kind))[pass] = Math.round(ownCpu() - t);
  return out;
};

for (let pass = 0; pass < Number(values.passes); pass++) {
  const reads = await timed(pass, 'reading (readSource: lines, hashes)', async () => {
    const out = [];
    for (const s of sources) out.push(await readSource(s.path, undefined, s.adapter, s.project));
    return out;
  });
  await timed(pass, "JSON.parse of the records alone (the floor's parse)", () => {
    for (const [i, read] of reads.entries()) {
      const format = sources[i].adapter.lineFormat;
      const texts = format === 'jsonl' ? read.chunk.lines.map((l) => l.text) : format === 'json' ? [read.chunk.lines.map((l) => l.text).join('\n')] : [];
      for (const text of texts) {
        try {
          JSON.parse(text);
        } catch {
          // a bad line: read, not a record
        }
      }
    }
  });
  const parsed = [];
  for (const [reader, indexes] of byReader) {
    await timed(pass, `reader: ${reader}, ${indexes.length} files (its JSON.parse included)`, () => {
      for (const i of indexes) {
        const s = sources[i];
        const read = reads[i];
        parsed[i] = s.adapter.parse({ file: s.path, lines: read.chunk.lines, ...(read.side ? { side: read.side } : {}) });
        for (const c of parsed[i].conversations) if (c.meta.project === undefined && s.project !== undefined) c.meta = { ...c.meta, project: s.project };
      }
    });
  }
  // segmenting as prepareSource does; the pieces it renders and the messages it takes files from are kept for the
  // rows after it (its exports are looked up at each call)
  const pieces = [];
  const touched = [];
  const { renderVerbatim } = renderModule;
  const { extractFiles } = filesModule;
  renderModule.renderVerbatim = (piece) => (pieces.push(piece), renderVerbatim(piece));
  filesModule.extractFiles = (messages, ctx) => (touched.push([messages, ctx]), extractFiles(messages, ctx));
  const exchanges = await timed(pass, 'segmenting (rendering and files touched included)', () =>
    parsed.flatMap((p) => p.conversations.flatMap((c) => segmentModule.segmentConversation(c, segment).exchanges)),
  );
  renderModule.renderVerbatim = renderVerbatim;
  filesModule.extractFiles = extractFiles;
  await timed(pass, `  rendering the verbatim again, ${pieces.length} pieces`, () => pieces.forEach((p) => renderVerbatim(p)));
  await timed(pass, `  files touched again, ${touched.length} exchanges`, () => touched.forEach(([m, ctx]) => extractFiles(m, ctx)));
  await timed(pass, `index text, ${exchanges.length} exchanges`, () => exchanges.forEach((e) => indexText(e.prompt, e.verbatim)));
  await timed(pass, '  its fields alone (ftsFields)', () => exchanges.forEach((e) => ftsFields(e.prompt, e.verbatim)));
}

const passes = Array.from({ length: Number(values.passes) }, (_, i) => (i === 0 ? 'pass 1 (cold), CPU ms' : `pass ${i + 1}, CPU ms`));
console.log(`${sources.length} files of ${resolve(values.corpus)}, build ${resolve(values.build)}\n`);
console.log(table(['kind', ...passes], [...rows].map(([kind, ms]) => Object.fromEntries([['kind', kind], ...ms.map((v, i) => [passes[i], v])]))));
