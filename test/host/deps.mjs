// The npm dependencies, installed once on a fresh clone so `npm start` and `npm test` are the only commands a
// newcomer needs. A lock-file change after that is the developer's `npm ci` to run.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export function ensureDependencies(root) {
  if (existsSync(join(root, 'node_modules/.package-lock.json'))) return;
  console.log('Installing npm dependencies (npm ci, once; ~2 minutes: @vscode/sqlite3 compiles SQLite)…');
  // onnxruntime-node's postinstall would try to download CUDA files; its CPU binaries ship in the package.
  const r = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, ONNXRUNTIME_NODE_INSTALL: 'skip' },
  });
  if (r.status !== 0) {
    console.error(`npm ci failed (exit ${r.status ?? r.signal}); fix the error above and run the command again.`);
    process.exit(1);
  }
}
