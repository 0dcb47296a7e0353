import { readdirSync, readFileSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { indexWorkspace } from '../../src/core/indexer';
import { Store } from '../../src/core/store/store';

/**
 * Checks the editor agents' adapters against real transcripts:
 *   node out/test/bench/promptCoverage.js CORPUS_DIR [--min-chars N]
 * For each sample folder (gemini-json, copilot-chat-json) it indexes the folder alone into a fresh store and
 * reads every human prompt straight from the files, independently of the adapters (Gemini: messages of
 * type `user` with text; Copilot: requests with `message.text`), locating it by the line of its id. Every
 * prompt must lie in a kept exchange or in an exchange dropped as too short (counted); anything else is a
 * prompt the adapter lost, and the exit code is 1. Prints per agent: files, conversations, exchanges,
 * prompts kept / dropped, and parse + store MB/s.
 */

interface Prompt {
  readonly file: string;
  readonly line: number;
}

interface Sample {
  readonly dir: string;
  readonly agent: string;
  /** The human prompts of one file, found without the adapter. */
  prompts(file: string, text: string): Prompt[];
}

const SAMPLES: readonly Sample[] = [
  {
    dir: 'gemini-json',
    agent: 'gemini',
    prompts: (file, text) => {
      const doc = JSON.parse(text) as { messages?: Array<{ id?: string; type?: string; content?: unknown }> };
      return (doc.messages ?? [])
        .filter((m) => m.type === 'user' && textOf(m.content).trim() !== '')
        .map((m) => ({ file, line: lineOf(text, `"id": ${JSON.stringify(m.id)}`) }));
    },
  },
  {
    dir: 'copilot-chat-json',
    agent: 'copilot',
    prompts: (file, text) => {
      const doc = JSON.parse(text) as { requests?: Array<{ requestId?: string; message?: { text?: string } }> };
      return (doc.requests ?? [])
        .filter((r) => (r.message?.text ?? '').trim() !== '')
        .map((r) => ({ file, line: lineOf(text, `"requestId": ${JSON.stringify(r.requestId)}`) }));
    },
  },
];

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p) => (typeof p?.text === 'string' ? p.text : '')).join('');
  return '';
}

function lineOf(text: string, needle: string): number {
  const at = text.indexOf(needle);
  if (at < 0) throw new Error(`cannot find ${needle}`);
  return text.slice(0, at).split('\n').length;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.json'))
    .map((e) => path.join(e.parentPath, e.name))
    .sort();
}

async function main(): Promise<void> {
  const corpus = process.argv[2];
  if (!corpus) {
    process.stderr.write('usage: node out/test/bench/promptCoverage.js CORPUS_DIR [--min-chars N]\n');
    process.exit(2);
  }
  const at = process.argv.indexOf('--min-chars');
  const minChars = at > 0 ? Number(process.argv[at + 1]) : 100;
  let lost = 0;
  const rows: string[] = ['| agent | files | MB | conversations | exchanges | prompts | in kept | in dropped (< min chars) | lost | parse+store MB/s |', '|---|---|---|---|---|---|---|---|---|---|'];
  for (const sample of SAMPLES) {
    const root = path.resolve(corpus, sample.dir);
    const db = path.join(os.tmpdir(), `prompt-coverage-${process.pid}-${sample.agent}.sqlite`);
    for (const suffix of ['', '-wal', '-shm']) rmSync(db + suffix, { force: true });
    const store = await Store.open(db);
    try {
      const report = await indexWorkspace(store, {
        discover: { workspaceRoots: [], claudeRoots: [], codexRoots: [], extraRoots: [root], includeSubagents: true },
        segment: { minChars, maxPlies: 20 },
        distiller: false,
      });
      if (report.failed.length > 0) throw new Error(`failed sources: ${JSON.stringify(report.failed)}`);
      const ranges = await store.db.all<{ path: string; line_start: number; line_end: number; kept: number }>(
        `SELECT s.path, e.line_start, e.line_end, 1 AS kept FROM exchanges e JOIN sources s ON s.id = e.source_id
         UNION ALL
         SELECT s.path, d.line_start, d.line_end, 0 FROM dropped_exchanges d JOIN sources s ON s.id = d.source_id`,
      );
      const conversations = (await store.db.get<{ n: number }>('SELECT count(*) AS n FROM conversations'))!.n;
      const files = filesUnder(root);
      let inKept = 0;
      let inDropped = 0;
      let prompts = 0;
      for (const file of files) {
        for (const p of sample.prompts(file, readFileSync(file, 'utf8'))) {
          prompts++;
          const holder = ranges.find((r) => r.path === p.file && r.line_start <= p.line && p.line <= r.line_end);
          if (!holder) {
            lost++;
            process.stderr.write(`LOST ${sample.agent} ${path.relative(corpus, p.file)}:${p.line}\n`);
          } else if (holder.kept) inKept++;
          else inDropped++;
        }
      }
      const kept = ranges.filter((r) => r.kept).length;
      const mb = report.bytesParsed / 1e6;
      rows.push(
        `| ${sample.agent} | ${files.length} | ${mb.toFixed(2)} | ${conversations} | ${kept} | ${prompts} | ${inKept} | ${inDropped} | ` +
          `${prompts - inKept - inDropped} | ${(mb / (report.parseMs / 1000)).toFixed(1)} |`,
      );
    } finally {
      await store.close();
      for (const suffix of ['', '-wal', '-shm']) rmSync(db + suffix, { force: true });
    }
  }
  process.stdout.write(`${rows.join('\n')}\n`);
  process.stdout.write(lost === 0 ? 'every human prompt is in a kept or a counted dropped exchange\n' : `${lost} prompts lost\n`);
  process.exit(lost === 0 ? 0 : 1);
}

void main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
