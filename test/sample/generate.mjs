// Generates the `npm start` sample: a workspace (.cache/sample-workspace, an invented web app) and invented
// transcripts of four agents spread over the last six weeks:
//   Claude Code sessions  .cache/sample-agents/claude/projects/<enc>/<id>.jsonl   (CLAUDE_CONFIG_DIR)
//   Codex CLI rollouts    .cache/sample-agents/codex/sessions/YYYY/MM/DD/*.jsonl  (CODEX_HOME)
//   SpecStory exports     <workspace>/.specstory/history/*.md
//   Aider history         <workspace>/.aider.chat.history.md
// JSONL sessions record the workspace path as their cwd. Regenerated when missing, when the generator
// version changes, or with --fresh. Usage: node test/sample/generate.mjs [--fresh]
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ROOT } from '../host/codeServer.mjs';
import {
  aiderHistory, claudeEditResult, claudeProjectDir, claudeSession, codexRollout, codexRolloutPath, specstoryFileName, specstoryMarkdown,
} from '../host/transcripts.mjs';
import { APP_FILES } from './app.mjs';
import { SESSIONS } from './sessions.mjs';

const VERSION = '2';
const DAY = 24 * 3600 * 1000;

export function generateSample({ fresh = false, base = join(ROOT, '.cache') } = {}) {
  const workspace = join(base, 'sample-workspace');
  const agents = join(base, 'sample-agents');
  const claudeConfigDir = join(agents, 'claude');
  const codexHome = join(agents, 'codex');
  const stamp = join(agents, 'version');
  const result = { workspace, claudeConfigDir, codexHome };
  if (!fresh && existsSync(stamp) && readFileSync(stamp, 'utf8') === VERSION) return result;

  rmSync(workspace, { recursive: true, force: true });
  rmSync(agents, { recursive: true, force: true });
  for (const [file, text] of Object.entries(APP_FILES)) write(join(workspace, file), text);

  // dates relative to today, so the sample reads like recent work
  const now = Date.now();
  // before noon UTC "today" is yesterday: the newest session (today 10:17 UTC) must not lie in the future
  const today = new Date(now).getUTCHours() >= 12 ? now : now - DAY;
  const at = (daysAgo, hour) => {
    const d = new Date(today - daysAgo * DAY);
    d.setUTCHours(hour, 17, 0, 0);
    return d.toISOString();
  };
  const file = (rel) => join(workspace, rel);
  const aider = [];
  for (const s of SESSIONS({ file, claudeEditResult })) {
    const start = at(s.daysAgo, s.hour);
    if (s.agent === 'claude-code') {
      write(join(claudeConfigDir, 'projects', claudeProjectDir(workspace), `${s.id}.jsonl`), claudeSession({ cwd: workspace, sessionId: s.id, start, turns: s.turns }));
    } else if (s.agent === 'codex') {
      write(join(codexHome, codexRolloutPath(s.id, start)), codexRollout({ cwd: workspace, id: s.id, start, turns: s.turns }));
    } else if (s.agent === 'specstory') {
      write(join(workspace, '.specstory/history', specstoryFileName(start, s.title)),
        specstoryMarkdown({ sessionId: s.id, title: s.title, start, turns: s.turns, ...(s.via ? { agent: s.via } : {}) }));
    } else if (s.agent === 'aider') {
      aider.push({ start, turns: s.turns, repoFiles: Object.keys(APP_FILES).length });
    }
  }
  write(join(workspace, '.aider.chat.history.md'), aiderHistory(aider));
  write(stamp, VERSION);
  return result;
}

function write(file, text) {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = generateSample({ fresh: process.argv.includes('--fresh') });
  console.log(JSON.stringify(r, null, 2));
}
