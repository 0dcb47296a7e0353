#!/usr/bin/env node
// `npm start`: a real VS Code (code-server) in the browser with Agent Recall and a sample workspace whose
// agent transcripts (Claude Code, Codex, SpecStory, Aider, Copilot Chat, Cline, Gemini CLI, Continue) are invented
// by test/sample/generate.mjs.
// Builds the extension, installs Node 24 + code-server into .cache/ once, and prints the URL. Ctrl-C stops it.
// Options: --fresh (regenerate the sample), --vsix (install the packaged .vsix instead of loading the working
// tree). Port: $PORT, else 8080, else a free one.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { ensureHost, freePort, installExtension, makeRunDir, ROOT, startCodeServer } from './host/codeServer.mjs';
import { ensureDependencies } from './host/deps.mjs';
import { generateSample, sampleEnv } from './sample/generate.mjs';

const HOST = '127.0.0.1';
const args = process.argv.slice(2);

function sh(cmd, argv) {
  const r = spawnSync(cmd, argv, { cwd: ROOT, stdio: 'inherit' });
  if (r.status !== 0) {
    console.error(`${cmd} ${argv.join(' ')} failed (exit ${r.status ?? r.signal})`);
    process.exit(1);
  }
}

function portIsFree(port) {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, HOST, () => srv.close(() => resolve(true)));
  });
}

ensureDependencies(ROOT);
try {
  ensureHost();
} catch {
  process.exit(1); // setup.sh has said what failed and what to do next
}
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const run = makeRunDir('start');
if (args.includes('--vsix')) {
  sh('npm', ['run', '--silent', 'package']);
  console.log(installExtension(run.dir, join(ROOT, '.cache/agent-recall-linux-x64.vsix')).split('\n').pop());
} else {
  sh(process.execPath, ['esbuild.mjs']);
  // VS Code picks up extension folders in --extensions-dir; a link to the working tree means
  // `npm run build` + "Developer: Reload Window" shows a change without restarting.
  mkdirSync(join(run.dir, 'extensions'), { recursive: true });
  symlinkSync(ROOT, join(run.dir, 'extensions', `${manifest.publisher}.${manifest.name}-${manifest.version}`));
}
const sample = generateSample({ fresh: args.includes('--fresh') });

const wanted = Number(process.env.PORT || 8080);
const port = (await portIsFree(wanted)) ? wanted : await freePort();
if (port !== wanted) console.log(`port ${wanted} is taken, using ${port}`);
const server = await startCodeServer(run.dir, {
  workspace: sample.workspace,
  host: HOST,
  port,
  env: sampleEnv(sample, run.dir),
});

console.log(`
Agent Recall in code-server (VS Code ${codeVersion()}), sample workspace ${sample.workspace}
  transcripts of seventeen agents: ${sample.claudeConfigDir.replace(/\/claude$/, '')} (Copilot Chat and Cline copied into the editor's user data)
  log: ${server.log}

  Open ${server.url}/?folder=${encodeURIComponent(sample.workspace)}

Ctrl-C stops everything.`);

function codeVersion() {
  try {
    return JSON.parse(readFileSync(join(ROOT, '.cache/vscode-host/cs/node_modules/code-server/lib/vscode/package.json'), 'utf8')).version;
  } catch {
    return '?';
  }
}

// keep running until Ctrl-C / SIGTERM (codeServer.mjs stops the process group and removes the run dir)
setInterval(() => {}, 1 << 30);
