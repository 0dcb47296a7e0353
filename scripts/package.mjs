#!/usr/bin/env node
// `npm run package [-- --target T]`: the platform-specific .vsix for one target (default: this machine's),
// at .cache/agent-recall-<target>.vsix. Native pieces are chosen per target here (.vscodeignore lists the
// platform-independent files): the @vscode/sqlite3 addon npm built on this machine, sqlite-vec's loadable for
// the target, and onnxruntime-node's binary for the target. The package is then read back: it must hold
// exactly those natives and nothing of another platform. The release workflow runs this on one runner per target.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { listVsix } from './vsix.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Per vsce target: sqlite-vec's package and loadable, onnxruntime-node's binary folder (none for darwin-x64). */
export const TARGETS = {
  'linux-x64': { vec: 'sqlite-vec-linux-x64/vec0.so', onnx: 'linux/x64' },
  'linux-arm64': { vec: 'sqlite-vec-linux-arm64/vec0.so', onnx: 'linux/arm64' },
  // onnxruntime-node (1.2x) ships no macOS x64 binary: there semantic search reports that the model cannot load
  'darwin-x64': { vec: 'sqlite-vec-darwin-x64/vec0.dylib' },
  'darwin-arm64': { vec: 'sqlite-vec-darwin-arm64/vec0.dylib', onnx: 'darwin/arm64' },
  'win32-x64': { vec: 'sqlite-vec-windows-x64/vec0.dll', onnx: 'win32/x64' },
};

/** The webviews' icons (esbuild.mjs copies them from @vscode/codicons): without them every icon is blank. */
const CODICONS = ['dist/codicons/codicon.css', 'dist/codicons/codicon.ttf'];
/** The built-in embedding model (scripts/buildBuiltinModel.mjs): without it the default setting has no semantic search. */
const BUILTIN_MODEL = ['dist/models/word-vectors-100d/manifest.json', 'dist/models/word-vectors-100d/words.txt', 'dist/models/word-vectors-100d/vectors.bin'];
const SQLITE3_ADDON = 'node_modules/@vscode/sqlite3/build/Release/vscode-sqlite3.node';

/** The lines the target adds to .vscodeignore (which excludes everything, then lists what ships). */
export function nativeLines(target) {
  const t = TARGETS[target];
  const pkg = t.vec.split('/')[0];
  return [
    `!${SQLITE3_ADDON}`,
    `!node_modules/${pkg}/package.json`,
    `!node_modules/${t.vec}`,
    ...(t.onnx ? [`!node_modules/onnxruntime-node/bin/napi-v6/${t.onnx}/*`] : []),
  ];
}

/** Problems with a package's entries for `target`: a native piece missing, or one of another platform. */
export function packageProblems(names, target) {
  const t = TARGETS[target];
  const files = names.filter((n) => !n.endsWith('/')).map((n) => n.replace(/^extension\//, ''));
  const problems = [];
  const need = ['dist/extension.js', 'dist/cli.js', 'dist/commands.js', 'dist/mcp.js', 'dist/embedWorker.js', 'dist/indexWorker.js', 'dist/runWorker.js', 'dist/webview.js', 'dist/viewer.js', ...CODICONS, ...BUILTIN_MODEL, 'package.json', SQLITE3_ADDON, `node_modules/${t.vec}`];
  if (t.onnx) need.push(`node_modules/onnxruntime-node/bin/napi-v6/${t.onnx}/onnxruntime_binding.node`);
  for (const f of need) if (!files.includes(f)) problems.push(`missing ${f}`);
  const allowed = (f) => f === SQLITE3_ADDON || f === `node_modules/${t.vec}` || (t.onnx !== undefined && f.startsWith(`node_modules/onnxruntime-node/bin/napi-v6/${t.onnx}/`));
  for (const f of files) {
    if (/\.(node|so(\.\d+)*|dylib|dll|a|lib|exe)$/.test(f) && !allowed(f)) problems.push(`native file not for ${target}: ${f}`);
    if (/^node_modules\/sqlite-vec-/.test(f) && !f.startsWith(`node_modules/${t.vec.split('/')[0]}/`)) problems.push(`another platform's sqlite-vec: ${f}`);
  }
  return problems;
}

function main() {
  const i = process.argv.indexOf('--target');
  const here = `${process.platform}-${process.arch}`;
  const target = i > 0 ? process.argv[i + 1] : here;
  if (!TARGETS[target]) fail(`unknown target ${target}; one of ${Object.keys(TARGETS).join(', ')}`);
  // the sqlite3 addon is the one npm built on this machine: packaging for another platform would ship it anyway
  if (target !== here) fail(`packaging ${target} must run on a ${target} machine (this one is ${here}): the @vscode/sqlite3 addon is built here`);
  const ignoreFile = join(ROOT, '.cache', `vscodeignore-${target}`);
  mkdirSync(join(ROOT, '.cache'), { recursive: true });
  writeFileSync(ignoreFile, `${readFileSync(join(ROOT, '.vscodeignore'), 'utf8').trimEnd()}\n# native pieces for ${target} (scripts/package.mjs)\n${nativeLines(target).join('\n')}\n`);
  const out = join(ROOT, '.cache', `agent-recall-${target}.vsix`);
  const vsce = join(ROOT, 'node_modules/@vscode/vsce/vsce');
  const r = spawnSync(process.execPath, [vsce, 'package', '--target', target, '--ignoreFile', ignoreFile, '--out', out], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  if (r.status !== 0) fail(`vsce package failed (exit ${r.status ?? r.signal})`);
  const problems = packageProblems(listVsix(out), target);
  if (problems.length) fail(`${out} is not a clean ${target} package:\n  ${problems.join('\n  ')}`);
  console.log(`${out}: ${target} natives only (sqlite3 addon, ${TARGETS[target].vec}${TARGETS[target].onnx ? `, onnxruntime ${TARGETS[target].onnx}` : ', no onnxruntime'})`);
}

function fail(message) {
  console.error(`package: ${message}`);
  process.exit(1);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
