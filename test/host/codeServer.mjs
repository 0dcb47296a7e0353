// Starts and stops a throw-away code-server (VS Code's server + web workbench, Node extension host).
// Every run gets its own temp dir for all state (HOME, XDG dirs, user data, extensions) and a free port.
// code-server runs in its own process group (setsid); stopping it kills the whole group, and so does
// the exit of this process (normal exit, Ctrl-C, SIGTERM), because it spawns helpers that would linger.
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url)).replace(/\/$/, '');
export const HOST_DIR = join(ROOT, '.cache/vscode-host');
const NODE = join(HOST_DIR, 'node/bin/node');
const ENTRY = join(HOST_DIR, 'cs/node_modules/code-server/out/node/entry.js');

/** Installs Node 24 + code-server into .cache/vscode-host once (test/host/setup.sh); a no-op when present. */
export function ensureHost() {
  const r = spawnSync('bash', [join(ROOT, 'test/host/setup.sh')], { stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`test/host/setup.sh failed (exit ${r.status ?? r.signal})`);
}

/** Process groups started here and still alive, and run dirs not yet cleaned: both go on any exit. */
const groups = new Set();
const pendingDirs = new Set();
let hooked = false;
function killGroup(pid, signal) {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false; // already gone
  }
}
function hookExit() {
  if (hooked) return;
  hooked = true;
  process.on('exit', () => {
    for (const pid of groups) killGroup(pid, 'SIGKILL');
    if (!process.env.AGENT_RECALL_KEEP_TMP) for (const dir of pendingDirs) rmSync(dir, { recursive: true, force: true });
  });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(signal, () => {
      for (const pid of groups) killGroup(pid, 'SIGTERM');
      process.exit(signal === 'SIGINT' ? 130 : 143);
    });
  }
}

/** Kills a process group we started (TERM, then KILL after a grace period). */
export async function stopGroup(pid, graceMs = 3000) {
  if (!groups.has(pid)) return;
  killGroup(pid, 'SIGTERM');
  const until = Date.now() + graceMs;
  while (Date.now() < until && killGroup(pid, 0)) await sleep(100);
  killGroup(pid, 'SIGKILL');
  groups.delete(pid);
}

/** Starts a command in a new session/process group (spawn's `detached` is setsid(2)), tracked for cleanup. */
export function spawnGroup(cmd, args, opts) {
  hookExit();
  const child = spawn(cmd, args, { ...opts, detached: true });
  groups.add(child.pid); // kept after the leader exits: its helpers may not have
  return child;
}

/**
 * A fresh temp dir for one run. `cleanup()` removes it (unless AGENT_RECALL_KEEP_TMP is set), `keep()` keeps it
 * for a look after a failure; a dir that got neither is removed when this process exits (e.g. on Ctrl-C).
 */
export function makeRunDir(label) {
  hookExit();
  const dir = mkdtempSync(join(tmpdir(), `agent-recall-${label}-`));
  pendingDirs.add(dir);
  return {
    dir,
    cleanup() {
      pendingDirs.delete(dir);
      if (process.env.AGENT_RECALL_KEEP_TMP) console.log(`kept ${dir}`);
      else rmSync(dir, { recursive: true, force: true });
    },
    keep() {
      pendingDirs.delete(dir);
    },
  };
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const SETTINGS = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'telemetry.telemetryLevel': 'off',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'extensions.ignoreRecommendations': true,
  'security.workspace.trust.enabled': false,
  'chat.disableAIFeatures': true,
  'update.mode': 'none',
  'git.openRepositoryInParentFolders': 'never',
};

/**
 * Prepares the state dirs of one code-server inside `runDir` and returns the command line and env.
 * `env` is merged over the process env (e.g. CLAUDE_CONFIG_DIR, CODEX_HOME for fixture transcripts).
 */
export function codeServerCommand(runDir, { env = {}, settings = {} } = {}) {
  const d = (name) => {
    const p = join(runDir, name);
    mkdirSync(p, { recursive: true });
    return p;
  };
  const userDir = d('user');
  mkdirSync(join(userDir, 'User'), { recursive: true });
  // a fixture's own User settings (userDataDirs) are kept
  const file = join(userDir, 'User/settings.json');
  const before = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
  writeFileSync(file, JSON.stringify({ ...SETTINGS, ...before, ...settings }, null, 2));
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(VSCODE_|ELECTRON_RUN_AS_NODE$)/.test(k)));
  const fullEnv = {
    ...base,
    HOME: d('home'),
    XDG_CONFIG_HOME: d('xdg/config'),
    XDG_DATA_HOME: d('xdg/data'),
    XDG_CACHE_HOME: d('xdg/cache'),
    PATH: `${join(HOST_DIR, 'node/bin')}:${process.env.PATH}`,
    ...env,
  };
  const args = [
    ENTRY,
    '--auth', 'none',
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-workspace-trust',
    '--disable-getting-started-override',
    '--user-data-dir', userDir,
    '--extensions-dir', d('extensions'),
  ];
  return { node: NODE, args, env: fullEnv };
}

/** Installs a .vsix into the run's extensions dir (same state dirs as `startCodeServer`). */
export function installExtension(runDir, vsix, opts = {}) {
  if (!existsSync(ENTRY)) throw new Error('code-server is not installed: run test/host/setup.sh');
  const { node, args, env } = codeServerCommand(runDir, opts);
  const r = spawnSync(node, [...args, '--install-extension', vsix], { env, encoding: 'utf8', timeout: 120_000 });
  if (r.status !== 0) throw new Error(`code-server --install-extension ${vsix} failed:\n${(r.stdout + r.stderr).slice(-3000)}`);
  return r.stdout.trim();
}

/**
 * Starts code-server on 127.0.0.1 and waits for /healthz.
 * Returns { url, port, pid, log, stop() }. `port` 0 or undefined: a free one.
 */
export async function startCodeServer(runDir, { workspace, port, env, settings, host = '127.0.0.1', timeoutMs = 60_000 } = {}) {
  if (!existsSync(ENTRY)) throw new Error('code-server is not installed: run test/host/setup.sh');
  const { node, args, env: fullEnv } = codeServerCommand(runDir, { env, settings });
  const log = join(runDir, 'code-server.log');
  for (let attempt = 1; ; attempt++) {
    const p = port || (await freePort());
    const fd = openSync(log, 'a');
    const child = spawnGroup(node, [...args, '--bind-addr', `${host}:${p}`, ...(workspace ? [workspace] : [])], {
      env: fullEnv,
      stdio: ['ignore', fd, fd],
    });
    closeSync(fd);
    let exited = false;
    child.on('exit', () => (exited = true));
    const url = `http://${host}:${p}`;
    const until = Date.now() + timeoutMs;
    while (!exited && Date.now() < until) {
      if (await healthy(url)) {
        return { url, port: p, pid: child.pid, log, stop: () => stopGroup(child.pid) };
      }
      await sleep(100);
    }
    await stopGroup(child.pid);
    const tail = readFileSync(log, 'utf8').split('\n').slice(-30).join('\n');
    // a free port can be taken between the probe and the bind: try another one
    if (exited && !port && attempt < 3 && /EADDRINUSE/.test(tail)) continue;
    throw new Error(`code-server did not answer ${url}/healthz (${exited ? 'it exited' : 'timeout'}). Last lines of ${log}:\n${tail}`);
  }
}

async function healthy(url) {
  try {
    const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2000) });
    return res.ok;
  } catch {
    return false;
  }
}
