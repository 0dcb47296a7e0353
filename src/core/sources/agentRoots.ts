import * as os from 'node:os';
import * as path from 'node:path';
import { editorUserDataDirs } from '../editorFolders';

/**
 * Where the editor agents keep their sessions by default. VS Code-family editors (VS Code, Insiders,
 * VSCodium, Cursor, code-server) each have a user-data folder `<ud>`; Copilot Chat writes under
 * `<ud>/User/workspaceStorage/<id>/chatSessions/` and `<ud>/User/globalStorage/emptyWindowChatSessions/`.
 * The extension knows its own `<ud>` from its storage folder (never guessed); other editors' folders are
 * settings. CLI agents keep theirs in the home folder.
 */

/**
 * The user-data folder of the editor running the extension, from the extension's storage folder:
 * `<ud>/User/workspaceStorage/<workspace-id>/<extension-id>`, `<ud>/User/globalStorage/<extension-id>` or a
 * workspace's store folder under the latter.
 */
export function userDataDirOf(storageDir: string): string | undefined {
  const parts = path.resolve(storageDir).split(path.sep);
  // the third form is a workspace's store folder, `<ud>/User/globalStorage/<extension-id>/workspaces/<key>` (storeLocation.ts)
  for (const [kind, up] of [['workspaceStorage', 2], ['globalStorage', 1], ['globalStorage', 3]] as const) {
    const at = parts.length - 1 - up;
    if (up === 3 && parts[at + 2] !== 'workspaces') continue;
    if (parts[at] === kind && parts[at - 1] === 'User') return parts.slice(0, at - 1).join(path.sep) || path.sep;
  }
  return undefined;
}

/**
 * The user-data folders of VS Code and its forks where the platform puts them (for the CLI, which has no
 * extension storage to find its editor by): `~/.config/Code` (Linux), `~/Library/Application Support/Code`
 * (macOS), `%APPDATA%\\Code` (Windows); Insiders, VSCodium, Cursor, Windsurf, Kiro and Trae (`Trae`, `Trae CN`, `TRAE SOLO CN`) beside them.
 */
export function defaultUserDataDirs(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string[] {
  return editorUserDataDirs(env, platform);
}

/**
 * The folders under a user-data folder where Copilot Chat sessions and Cline / Roo Code / legacy Kilo Code tasks
 * live (and Trae's workspace databases), Cursor's chat database (a file; present only in Cursor's user-data folder; in
 * Trae's, Trae's global database), Amp's older threads and the Kiro IDE's agent storage (only in Kiro's).
 */
export function editorAgentRoots(userDataDir: string): string[] {
  const user = path.join(userDataDir, 'User');
  const global = path.join(user, 'globalStorage');
  return [
    path.join(user, 'workspaceStorage'),
    path.join(global, 'emptyWindowChatSessions'),
    path.join(global, 'saoudrizwan.claude-dev', 'tasks'),
    path.join(global, 'rooveterinaryinc.roo-cline', 'tasks'),
    path.join(global, 'state.vscdb'),
    // Amp's VS Code extension kept its threads here before it moved them to Amp's own data folder
    path.join(global, 'sourcegraph.amp', 'threads3'),
    path.join(global, 'kilocode.kilo-code', 'tasks'),
    path.join(global, 'kiro.kiroagent'),
  ];
}

/** Gemini CLI: `~/.gemini/tmp/<project>/chats/` (`GEMINI_CLI_HOME` moves the home folder it is under). */
export function defaultGeminiRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  return [path.join(env['GEMINI_CLI_HOME'] || os.homedir(), '.gemini', 'tmp')];
}

/** Continue: `~/.continue/sessions/` (`CONTINUE_GLOBAL_DIR` replaces `~/.continue`). */
export function defaultContinueRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  return [path.join(env['CONTINUE_GLOBAL_DIR'] || path.join(os.homedir(), '.continue'), 'sessions')];
}

/** OpenCode: `$XDG_DATA_HOME/opencode`, by default `~/.local/share/opencode` on every platform (xdg-basedir). */
export function defaultOpenCodeRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  return [path.join(env['XDG_DATA_HOME'] || path.join(os.homedir(), '.local', 'share'), 'opencode')];
}

/**
 * GitHub Copilot CLI: `~/.copilot/session-state/` (`%USERPROFILE%\.copilot` on Windows; `COPILOT_HOME` replaces
 * `~/.copilot`); builds up to 0.0.421 kept it under `$XDG_CONFIG_HOME/.copilot` when that was set.
 */
export function defaultCopilotCliRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  const roots = [path.join(env['COPILOT_HOME'] || path.join(os.homedir(), '.copilot'), 'session-state')];
  if (env['XDG_CONFIG_HOME']) roots.push(path.join(env['XDG_CONFIG_HOME'], '.copilot', 'session-state'));
  return roots;
}

/**
 * Qwen Code: `~/.qwen/projects/<project>/chats/*.jsonl`, and the JSON documents of older versions under
 * `~/.qwen/tmp/<hash>/chats/` (`QWEN_RUNTIME_DIR` replaces `~/.qwen` for both).
 */
export function defaultQwenRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  const base = env['QWEN_RUNTIME_DIR'] || path.join(os.homedir(), '.qwen');
  return [path.join(base, 'projects'), path.join(base, 'tmp')];
}

/** Amp: `$XDG_DATA_HOME/amp/threads`, by default `~/.local/share/amp/threads` (the same under the home folder everywhere). */
export function defaultAmpRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  return [path.join(env['XDG_DATA_HOME'] || path.join(os.homedir(), '.local', 'share'), 'amp', 'threads')];
}

/** Pi: `~/.pi/agent/sessions/` (`PI_CODING_AGENT_DIR` replaces `~/.pi/agent`; `%USERPROFILE%\.pi` on Windows). */
export function defaultPiRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  return [path.join(env['PI_CODING_AGENT_DIR'] || path.join(os.homedir(), '.pi', 'agent'), 'sessions')];
}

/**
 * Kilo Code (its CLI and its VS Code extension since 2026): `$XDG_DATA_HOME/kilo`, by default `~/.local/share/kilo`
 * on every platform (xdg-basedir, as OpenCode), and the database `KILO_DB` names (absolute, or in that folder).
 */
export function defaultKiloRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  const data = path.join(env['XDG_DATA_HOME'] || path.join(os.homedir(), '.local', 'share'), 'kilo');
  const db = env['KILO_DB'];
  return [data, ...(db && db !== ':memory:' ? [path.isAbsolute(db) ? db : path.join(data, db)] : [])];
}

/**
 * Kiro CLI: its JSONL sessions in `~/.kiro/sessions/cli/`, and its database `data.sqlite3` in its data folder
 * `kiro-cli` (`$XDG_DATA_HOME`, by default `~/.local/share`, on Linux; `~/Library/Application Support` on macOS and
 * `%LOCALAPPDATA%` on Windows, where the Rust `dirs` crate puts it: not confirmed from a capture).
 */
export function defaultKiroRoots(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string[] {
  const home = os.homedir();
  const data =
    platform === 'win32'
      ? env['LOCALAPPDATA'] || path.join(home, 'AppData', 'Local')
      : platform === 'darwin'
        ? path.join(home, 'Library', 'Application Support')
        : env['XDG_DATA_HOME'] || path.join(home, '.local', 'share');
  return [path.join(home, '.kiro', 'sessions', 'cli'), path.join(data, 'kiro-cli')];
}

/**
 * Zed's agent threads: `threads/` in Zed's data folder (not `~/.config/zed`): `$FLATPAK_XDG_DATA_HOME` or
 * `$XDG_DATA_HOME` (default `~/.local/share`) + `zed` on Linux, `~/Library/Application Support/Zed` on macOS,
 * `%LOCALAPPDATA%\\Zed` on Windows.
 */
export function defaultZedRoots(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string[] {
  const home = os.homedir();
  const data =
    platform === 'win32'
      ? path.join(env['LOCALAPPDATA'] || path.join(home, 'AppData', 'Local'), 'Zed')
      : platform === 'darwin'
        ? path.join(home, 'Library', 'Application Support', 'Zed')
        : path.join(env['FLATPAK_XDG_DATA_HOME'] || env['XDG_DATA_HOME'] || path.join(home, '.local', 'share'), 'zed');
  return [path.join(data, 'threads')];
}

/**
 * OpenHands CLI: `$OPENHANDS_CONVERSATIONS_DIR`, else `conversations/` in `$OPENHANDS_PERSISTENCE_DIR`, by default
 * `~/.openhands` on every platform (Python's `expanduser`).
 */
export function defaultOpenHandsRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  return [env['OPENHANDS_CONVERSATIONS_DIR'] || path.join(env['OPENHANDS_PERSISTENCE_DIR'] || path.join(os.homedir(), '.openhands'), 'conversations')];
}

/** Kimi Code: `sessions/` in `$KIMI_CODE_HOME`, by default `~/.kimi-code` on every platform. */
export function defaultKimiRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  return [path.join(env['KIMI_CODE_HOME'] || path.join(os.homedir(), '.kimi-code'), 'sessions')];
}

/**
 * Warp's state folder, where its `warp.sqlite` is (warpdotdev/warp `crates/warp_core/src/paths.rs`): `$XDG_STATE_HOME`
 * (default `~/.local/state`) + `warp-terminal` on Linux; on macOS its app-group container
 * `~/Library/Group Containers/2BBY89MBSN.dev.warp/Library/Application Support/dev.warp.Warp-Stable`, else
 * `~/Library/Application Support/dev.warp.Warp-Stable`; `%LOCALAPPDATA%\\warp\\Warp\\data` on Windows. Stable channel.
 */
export function defaultWarpRoots(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string[] {
  const home = os.homedir();
  if (platform === 'win32') return [path.join(env['LOCALAPPDATA'] || path.join(home, 'AppData', 'Local'), 'warp', 'Warp', 'data')];
  if (platform === 'darwin') {
    const support = path.join('Library', 'Application Support', 'dev.warp.Warp-Stable');
    return [path.join(home, 'Library', 'Group Containers', '2BBY89MBSN.dev.warp', support), path.join(home, support)];
  }
  return [path.join(env['XDG_STATE_HOME'] || path.join(home, '.local', 'state'), 'warp-terminal')];
}

/**
 * Antigravity: the `brain/` folders of its IDE (`~/.gemini/antigravity`) and of its CLI (`~/.gemini/antigravity-cli`),
 * under the home folder on every platform; each conversation's text log and notes are there.
 */
export function defaultAntigravityRoots(): string[] {
  const gemini = path.join(os.homedir(), '.gemini');
  return [path.join(gemini, 'antigravity', 'brain'), path.join(gemini, 'antigravity-cli', 'brain')];
}

/** Junie: `sessions/` in `$JUNIE_HOME`, by default `.junie` in the home folder (the JVM's `user.home`) on every platform. */
export function defaultJunieRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  return [path.join(env['JUNIE_HOME'] || path.join(os.homedir(), '.junie'), 'sessions')];
}
