// Entry of the in-host test suite: VS Code loads this file in the extension host (extensionTestsPath) and
// awaits run() (the contract of @vscode/test-electron). Mocha runs every *.test.js next to it. Results go,
// one JSON object per line, to the file named by AGENT_RECALL_TEST_RESULTS (read by test/host/inhost.mjs)
// and to the console.
import * as fs from 'node:fs';
import * as path from 'node:path';
import Mocha from 'mocha';

export interface ResultRecord {
  readonly type: 'pass' | 'fail' | 'pending' | 'end';
  readonly title?: string;
  readonly ms?: number;
  readonly error?: string;
  readonly passed?: number;
  readonly failed?: number;
}

function record(rec: ResultRecord): void {
  const file = process.env['AGENT_RECALL_TEST_RESULTS'];
  if (file) fs.appendFileSync(file, JSON.stringify(rec) + '\n');
  const line = rec.type === 'end' ? `${rec.passed} passed, ${rec.failed} failed` : `${rec.type} ${rec.title}${rec.error ? `\n${rec.error}` : ''}`;
  console.log(`[in-host] ${line}`);
}

/** Reports each test as it ends; mocha constructs it with the runner. */
class ResultReporter {
  constructor(runner: Mocha.Runner) {
    let passed = 0;
    let failed = 0;
    runner.on('pass', (t) => {
      passed++;
      record({ type: 'pass', title: t.fullTitle(), ms: t.duration ?? 0 });
    });
    runner.on('fail', (t, err: Error) => {
      failed++;
      record({ type: 'fail', title: t.fullTitle(), error: err?.stack ?? String(err) });
    });
    runner.on('pending', (t) => record({ type: 'pending', title: t.fullTitle() }));
    runner.once('end', () => record({ type: 'end', passed, failed }));
  }
}

export async function run(): Promise<void> {
  const mocha = new Mocha({ ui: 'bdd', color: false, timeout: 60_000, reporter: ResultReporter as unknown as Mocha.ReporterConstructor });
  const grep = process.env['AGENT_RECALL_TEST_GREP'];
  if (grep) mocha.grep(grep);
  for (const f of fs.readdirSync(__dirname).filter((n) => n.endsWith('.test.js')).sort()) mocha.addFile(path.join(__dirname, f));
  await mocha.loadFilesAsync();
  const failures = await new Promise<number>((resolve) => mocha.run(resolve));
  if (failures > 0) throw new Error(`${failures} in-host test(s) failed`);
}
