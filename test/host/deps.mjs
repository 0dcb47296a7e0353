// The npm dependencies, installed once on a fresh clone so `npm start` and `npm test` are the only commands a
// newcomer needs. A lock-file change after that is the developer's `npm ci` to run.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export function ensureDependencies(root) {
  if (existsSync(join(root, 'node_modules/.package-lock.json'))) return;
  // measured 2026-11-29 on a fresh clone, 2 cores shared with other jobs: 9 min 57 s, of which 1 min 31 s of CPU
  console.log('Installing npm dependencies (npm ci, once: several minutes to write 538 packages, 1.2 GB, and compile SQLite for @vscode/sqlite3)…');
  // onnxruntime-node's postinstall would try to download CUDA files (its CPU binaries ship in the package): npm 11.16+
  // skips it as package.json's allowScripts says, npm 10 (Node 20's) needs this.
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
