#!/usr/bin/env node
// `node scripts/npmPackage.mjs`: the command line and MCP server as the npm package `agent-recall`, so an agent
// outside VS Code gets the memory with `npx agent-recall mcp --workspace .`. A package of its own, not the
// extension's manifest with a `bin`: that manifest is a VS Code one (private, contributes, vsce's fields) and its
// dependencies are the extension's build and test stack (~470 MB with onnxruntime-node and transformers.js).
// The CLI bundle (dist/cli.js, built by esbuild.mjs) carries everything but the two native pieces it loads from
// node_modules: @vscode/sqlite3 and sqlite-vec (whose loadable comes in a per-platform npm package).
// Staged in .cache/npm-package/, packed to .cache/agent-recall-<version>.tgz; prints the tarball's path.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** What the CLI requires at run time from node_modules: esbuild's externals that dist/cli.js reaches. */
const RUNTIME_DEPENDENCIES = ['@vscode/sqlite3', 'sqlite-vec'];

/** The bundle and what it reads beside itself: vendor bundles, the built-in model, the distillation prompts. */
export function packageFiles(root = ROOT) {
  const within = (dir, keep) => readdirSync(join(root, dir)).filter(keep).map((f) => `${dir}/${f}`);
  return [
    'dist/cli.js',
    'dist/commands.js',
    'dist/mcp.js',
    'dist/embedWorker.js',
    'dist/indexWorker.js',
    ...within('dist/vendor', (f) => f.endsWith('.js')),
    ...within('dist/models/word-vectors-100d', () => true),
    ...within('prompts', (f) => f.endsWith('.md')),
    'LICENSE',
  ];
}

/**
 * The npm manifest, from the extension's: same version, licence and links; only the CLI's dependencies.
 * `onnxruntime` is the onnxruntime-node version transformers.js wants (an optional peer: see below).
 */
export function npmManifest(extension, onnxruntime) {
  const dependencies = Object.fromEntries(RUNTIME_DEPENDENCIES.map((d) => [d, extension.dependencies[d]]));
  for (const [name, range] of Object.entries(dependencies)) if (!range) throw new Error(`${name} is not a dependency of the extension`);
  return {
    name: 'agent-recall',
    version: extension.version,
    description: 'The memory of your AI coding agents\' past conversations, as a command line and an MCP server: `npx agent-recall mcp --workspace .`',
    license: extension.license,
    keywords: ['mcp', 'mcp-server', 'memory', 'claude code', 'codex', 'gemini cli', 'copilot', 'cursor', 'transcripts', 'search'],
    repository: extension.repository,
    bugs: extension.bugs,
    homepage: extension.homepage,
    bin: { 'agent-recall': 'dist/cli.js' },
    files: ['dist/', 'prompts/'],
    engines: { node: extension.engines.node },
    dependencies,
    // a Hugging Face model (--embed-model) runs on onnxruntime-node; the built-in word vectors need nothing
    // (not a dependency: its install script fetches GPU libraries from outside npm on Linux x64)
    peerDependencies: { 'onnxruntime-node': onnxruntime },
    peerDependenciesMeta: { 'onnxruntime-node': { optional: true } },
  };
}

/** Writes the package into `dir` (emptied first) from a built tree. */
export function stagePackage(dir, root = ROOT) {
  if (!existsSync(join(root, 'dist/cli.js'))) throw new Error('dist/cli.js is missing: run `node esbuild.mjs` first');
  rmSync(dir, { recursive: true, force: true });
  for (const f of packageFiles(root)) {
    mkdirSync(dirname(join(dir, f)), { recursive: true });
    copyFileSync(join(root, f), join(dir, f));
  }
  copyFileSync(join(root, 'scripts/npm-readme.md'), join(dir, 'README.md'));
  const extension = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const transformers = JSON.parse(readFileSync(join(root, 'node_modules/@huggingface/transformers/package.json'), 'utf8'));
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(npmManifest(extension, transformers.dependencies['onnxruntime-node']), null, 2)}\n`);
}

/** Stages and packs: the tarball's path, its files and sizes (npm pack's report). */
export function packNpm(root = ROOT) {
  const dir = join(root, '.cache/npm-package');
  stagePackage(dir, root);
  const r = spawnSync('npm', ['pack', '--json', '--pack-destination', join(root, '.cache')], { cwd: dir, encoding: 'utf8', shell: process.platform === 'win32' });
  if (r.status !== 0) throw new Error(`npm pack failed (exit ${r.status ?? r.signal}): ${r.stderr}`);
  const [packed] = JSON.parse(r.stdout);
  return { file: join(root, '.cache', packed.filename), files: packed.files.map((f) => f.path), size: packed.size, unpackedSize: packed.unpackedSize };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    const packed = packNpm();
    console.log(`${packed.file}: ${packed.files.length} files, ${(packed.size / 1e6).toFixed(1)} MB (${(packed.unpackedSize / 1e6).toFixed(1)} MB unpacked)`);
  } catch (err) {
    console.error(`npm package: ${err.message}`);
    process.exit(1);
  }
}
