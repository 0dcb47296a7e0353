import * as os from 'node:os';
import * as path from 'node:path';

/**
 * Where VS Code and its forks keep their user data, for the command line, which has no extension storage to find
 * its editor by. Each product has a folder of its own name under the platform's application-data folder
 * (`~/.config`, `~/Library/Application Support`, `%APPDATA%`), laid out as VS Code's: `User/globalStorage/<id>`,
 * `User/workspaceStorage/<id>`. Where they differ is only that name, and, on a remote host, the server's folder
 * in the home folder (`~/.vscode-server/data`, `~/.cursor-server/data`, …), which has the same layout.
 */

/** Product folder names: VS Code, Insiders, VSCodium, Cursor, Windsurf, Kiro, Trae and its Chinese and SOLO editions (all but the first two install from Open VSX). */
export const EDITOR_PRODUCTS = ['Code', 'Code - Insiders', 'VSCodium', 'Cursor', 'Windsurf', 'Kiro', 'Trae', 'Trae CN', 'TRAE SOLO CN'] as const;

/** The remote servers' data folders, under the home folder of the remote host. */
const REMOTE_SERVERS = ['.vscode-server', '.vscode-server-insiders', '.vscodium-server', '.cursor-server', '.windsurf-server'];

/** The platform's application-data folder, where desktop editors keep their user data. */
export function appDataFolder(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform, home = os.homedir()): string {
  if (platform === 'win32') return env['APPDATA'] || path.join(home, 'AppData', 'Roaming');
  if (platform === 'darwin') return path.join(home, 'Library', 'Application Support');
  return env['XDG_CONFIG_HOME'] || path.join(home, '.config');
}

/** Every desktop product's user-data folder on this platform, in EDITOR_PRODUCTS' order. */
export function editorUserDataDirs(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform, home = os.homedir()): string[] {
  const base = appDataFolder(env, platform, home);
  return EDITOR_PRODUCTS.map((product) => path.join(base, product));
}

/** The user-data folders of the remote servers (`<home>/.vscode-server/data`, …): a remote window's extension host runs there. */
export function remoteServerDataDirs(home = os.homedir()): string[] {
  return REMOTE_SERVERS.map((server) => path.join(home, server, 'data'));
}
