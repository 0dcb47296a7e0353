// Generates the `npm start` sample: a workspace (.cache/sample-workspace, an invented web app) and invented
// transcripts of thirteen agents spread over the last six weeks:
//   Claude Code sessions  .cache/sample-agents/claude/projects/<enc>/<id>.jsonl   (CLAUDE_CONFIG_DIR)
//   Codex CLI rollouts    .cache/sample-agents/codex/sessions/YYYY/MM/DD/*.jsonl  (CODEX_HOME)
//   SpecStory exports     <workspace>/.specstory/history/*.md
//   Aider history         <workspace>/.aider.chat.history.md
//   Gemini CLI sessions   .cache/sample-agents/gemini/.gemini/tmp/<sha256 of the workspace>/chats/*.json  (GEMINI_CLI_HOME)
//   Continue sessions     .cache/sample-agents/continue/sessions/<id>.json + sessions.json  (CONTINUE_GLOBAL_DIR)
//   Copilot Chat, Cline,  .cache/sample-agents/editor/User/{workspaceStorage,globalStorage}/...: what they write
//   Kilo Code (legacy),   into the editor's own user data (Kiro's, as if the editor were Kiro); copied into
//   Kiro IDE              code-server's --user-data-dir at start
//   Copilot CLI sessions  .cache/sample-agents/copilot/session-state/<id>/events.jsonl + workspace.yaml  (COPILOT_HOME)
//   Qwen Code sessions    .cache/sample-agents/qwen/projects/<enc>/chats/<id>.jsonl  (QWEN_RUNTIME_DIR)
//   Amp threads           .cache/sample-agents/amp-data/amp/threads/T-*.json: copied into the run's XDG_DATA_HOME at start
//   Kimi Code sessions    .cache/sample-agents/kimi/sessions/<workDirKey>/<id>/agents/main/wire.jsonl + state.json  (KIMI_CODE_HOME)
//   Junie sessions        .cache/sample-agents/junie/sessions/<id>/events.jsonl + sessions/index.jsonl  (JUNIE_HOME)
//   OpenHands CLI         .cache/sample-agents/openhands/<id>/base_state.json + events/  (OPENHANDS_CONVERSATIONS_DIR)
// Sessions record the workspace path as their cwd (Copilot: workspace.json). Regenerated when missing, when the
// generator version changes, or with --fresh. Usage: node test/sample/generate.mjs [--fresh]
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from '../host/codeServer.mjs';
import {
  aiderHistory, claudeEditResult, claudeProjectDir, claudeSession, clineTask, codexRollout, codexRolloutPath, continueSession, copilotSession,
  geminiSession, kiloTask, kiroIdeSession, specstoryFileName, specstoryMarkdown,
} from '../host/transcripts.mjs';
import { ampThread, copilotCliSession, qwenProjectDir, qwenSession } from '../host/cliTranscripts.mjs';
import { junieSession, kimiSession, openHandsConversation } from '../host/kimiJunieOpenHands.mjs';
import { APP_FILES } from './app.mjs';
import { SESSIONS } from './sessions.mjs';

const VERSION = '6';
const DAY = 24 * 3600 * 1000;

export function generateSample({ fresh = false, base = join(ROOT, '.cache') } = {}) {
  const workspace = join(base, 'sample-workspace');
  const agents = join(base, 'sample-agents');
  const claudeConfigDir = join(agents, 'claude');
  const codexHome = join(agents, 'codex');
  const geminiHome = join(agents, 'gemini');
  const continueHome = join(agents, 'continue');
  const editorData = join(agents, 'editor');
  const copilotHome = join(agents, 'copilot');
  const qwenHome = join(agents, 'qwen');
  const ampData = join(agents, 'amp-data');
  const kimiHome = join(agents, 'kimi');
  const junieHome = join(agents, 'junie');
  const openHandsHome = join(agents, 'openhands');
  const stamp = join(agents, 'version');
  const result = { workspace, claudeConfigDir, codexHome, geminiHome, continueHome, editorData, copilotHome, qwenHome, ampData, kimiHome, junieHome, openHandsHome };
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
  const continueIndex = [];
  const junieIndex = [];
  const copilotStorage = join(editorData, 'User/workspaceStorage/sample-larder');
  write(join(copilotStorage, 'workspace.json'), JSON.stringify({ folder: pathToFileURL(workspace).href }));
  const projectHash = createHash('sha256').update(workspace).digest('hex');
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
    } else if (s.agent === 'copilot') {
      write(join(copilotStorage, 'chatSessions', `${s.id}.json`), copilotSession({ sessionId: s.id, start, turns: s.turns }));
    } else if (s.agent === 'gemini') {
      const name = `session-${start.slice(0, 16).replace(':', '-')}-${s.id.slice(0, 8)}.json`;
      write(join(geminiHome, '.gemini/tmp', projectHash, 'chats', name), geminiSession({ sessionId: s.id, projectHash, start, turns: s.turns }));
    } else if (s.agent === 'cline') {
      write(join(editorData, 'User/globalStorage/saoudrizwan.claude-dev/tasks', String(Date.parse(start)), 'api_conversation_history.json'),
        clineTask({ cwd: workspace, start, turns: s.turns, visible: s.visible }));
    } else if (s.agent === 'kilo') {
      const task = kiloTask({ cwd: workspace, start, turns: s.turns, visible: s.visible });
      const dir = join(editorData, 'User/globalStorage/kilocode.kilo-code/tasks', task.id);
      write(join(dir, 'api_conversation_history.json'), task.history);
      write(join(dir, 'ui_messages.json'), task.ui);
    } else if (s.agent === 'kiro') {
      const files = kiroIdeSession({ workspace, sessionId: s.id, title: s.title, start, turns: s.turns });
      for (const [rel, text] of Object.entries(files)) write(join(editorData, 'User/globalStorage/kiro.kiroagent', rel), text);
    } else if (s.agent === 'continue') {
      const { session, index } = continueSession({ sessionId: s.id, title: s.title, workspace: pathToFileURL(workspace).href, start, turns: s.turns });
      write(join(continueHome, 'sessions', `${s.id}.json`), session);
      continueIndex.push(index);
    } else if (s.agent === 'copilot-cli') {
      const { events, workspaceYaml } = copilotCliSession({ cwd: workspace, sessionId: s.id, start, turns: s.turns, title: s.title });
      write(join(copilotHome, 'session-state', s.id, 'events.jsonl'), events);
      write(join(copilotHome, 'session-state', s.id, 'workspace.yaml'), workspaceYaml);
    } else if (s.agent === 'qwen-code') {
      write(join(qwenHome, 'projects', qwenProjectDir(workspace), 'chats', `${s.id}.jsonl`), qwenSession({ cwd: workspace, sessionId: s.id, start, turns: s.turns, title: s.title }));
    } else if (s.agent === 'amp') {
      write(join(ampData, 'amp', 'threads', `${s.id}.json`), ampThread({ cwd: workspace, threadId: s.id, start, turns: s.turns, title: s.title }));
    } else if (s.agent === 'kimi') {
      const { wire, state } = kimiSession({ cwd: workspace, sessionId: s.id, start, turns: s.turns, title: s.title });
      const dir = join(kimiHome, 'sessions', 'wd_larder_5a6b7c8d9e0f', s.id);
      write(join(dir, 'agents', 'main', 'wire.jsonl'), wire);
      write(join(dir, 'state.json'), state);
    } else if (s.agent === 'junie') {
      const { events, index } = junieSession({ cwd: workspace, sessionId: s.id, start, turns: s.turns, title: s.title });
      write(join(junieHome, 'sessions', s.id, 'events.jsonl'), events);
      junieIndex.push(index);
    } else if (s.agent === 'openhands') {
      for (const [rel, text] of Object.entries(openHandsConversation({ cwd: workspace, conversationId: s.id, start, turns: s.turns }))) write(join(openHandsHome, s.id, rel), text);
    } else {
      throw new Error(`sample session of an unknown agent: ${s.agent}`);
    }
  }
  write(join(workspace, '.aider.chat.history.md'), aiderHistory(aider));
  write(join(continueHome, 'sessions/sessions.json'), `${JSON.stringify(continueIndex, null, 2)}\n`);
  write(join(junieHome, 'sessions', 'index.jsonl'), junieIndex.map((l) => `${l}\n`).join(''));
  write(stamp, VERSION);
  return result;
}

/**
 * What code-server needs to read the sample: the agents' folders in its environment, what Copilot Chat and
 * Cline wrote into the editor's own user data copied into the run's `--user-data-dir` (`<runDir>/user`), and Amp's
 * threads into the run's XDG_DATA_HOME (`<runDir>/xdg/data`, codeServer.mjs), where Amp keeps them.
 */
export function sampleEnv(sample, runDir) {
  cpSync(sample.editorData, join(runDir, 'user'), { recursive: true });
  cpSync(sample.ampData, join(runDir, 'xdg/data'), { recursive: true });
  return {
    CLAUDE_CONFIG_DIR: sample.claudeConfigDir, CODEX_HOME: sample.codexHome, GEMINI_CLI_HOME: sample.geminiHome, CONTINUE_GLOBAL_DIR: sample.continueHome,
    COPILOT_HOME: sample.copilotHome, QWEN_RUNTIME_DIR: sample.qwenHome,
    KIMI_CODE_HOME: sample.kimiHome, JUNIE_HOME: sample.junieHome, OPENHANDS_CONVERSATIONS_DIR: sample.openHandsHome,
  };
}

function write(file, text) {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = generateSample({ fresh: process.argv.includes('--fresh') });
  console.log(JSON.stringify(r, null, 2));
}
