import { createHash } from 'node:crypto';
import { copyFile, mkdir, rename, rm, stat } from 'node:fs/promises';
import { realpathSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { editorUserDataDirs, remoteServerDataDirs } from './editorFolders';

/**
 * Where a workspace's store lives, as one rule the extension and the command line share, so that
 * `agent-recall mcp --workspace DIR` (run by Claude Code, Codex, Gemini CLI, …) opens the very file the
 * extension indexes into.
 *
 * The extension keeps the store in its GLOBAL storage folder, under a key computed from the workspace's
 * folders: `<globalStorage>/workspaces/<name>-<hash>/recall.sqlite`. VS Code's per-workspace storage
 * (`context.storageUri`) cannot be found from outside: its folder name hashes the folder's inode on Linux
 * and, in a remote or web workbench (code-server), the URI the browser connected with.
 */

export const STORE_FILE = 'recall.sqlite';

/**
 * Which history a window recalls (`agentRecall.scope`): its workspace's projects only, or every project's
 * sessions the agents kept. Each has its own store beside the other, so switching back and forth opens a file
 * that is already built (a run then reads only what changed) and the workspace's store never holds other projects.
 */
export type RecallScope = 'workspace' | 'allHistory';

/** The store of a workspace's window when it recalls all history: beside its own store (STORE_FILE). */
export const ALL_HISTORY_STORE_FILE = 'recall-all-history.sqlite';

/** The file name of the store of `scope`, in a workspace's store folder. */
export function storeFileName(scope: RecallScope): string {
  return scope === 'allHistory' ? ALL_HISTORY_STORE_FILE : STORE_FILE;
}

/** The extension's identifier as VS Code names its global storage folder (`publisher.name`, lower case). */
export const EXTENSION_STORAGE_ID = 'agent-recall.agent-recall';

/**
 * The canonical form of a workspace folder: absolute, symlinks resolved when it exists, no trailing
 * separator; on Windows and macOS, whose file systems ignore case by default, lower-cased.
 */
export function canonicalFolder(folder: string, platform: NodeJS.Platform = process.platform): string {
  let p = path.resolve(folder);
  try {
    p = realpathSync.native(p);
  } catch {
    // a folder that does not exist (yet) keeps its resolved name
  }
  if (p.length > 1 && /[\\/]$/.test(p) && !/^[A-Za-z]:[\\/]$/.test(p)) p = p.slice(0, -1);
  return platform === 'win32' || platform === 'darwin' ? p.toLowerCase() : p;
}

/**
 * The folder name of a workspace's store: the first folder's name (readable, for people looking in the
 * storage folder) and a hash of all its folders, sorted (a multi-root workspace is the set of its folders).
 */
export function workspaceStoreKey(folders: readonly string[], platform: NodeJS.Platform = process.platform): string {
  if (folders.length === 0) throw new Error('A workspace store needs at least one folder.');
  const canonical = [...new Set(folders.map((f) => canonicalFolder(f, platform)))].sort();
  const hash = createHash('sha256').update(canonical.join('\n')).digest('hex').slice(0, 16);
  const name = path.basename(canonical[0]!).replace(/[^\w.-]+/g, '_').slice(0, 40) || 'root';
  return `${name}-${hash}`;
}

/** The store file of the workspace made of `folders` (of its `scope`), under the extension's global storage folder. */
export function workspaceStoreFile(globalStorage: string, folders: readonly string[], scope: RecallScope = 'workspace'): string {
  return path.join(globalStorage, 'workspaces', workspaceStoreKey(folders), storeFileName(scope));
}

/**
 * The extension's global storage folders of every VS Code flavour this user may run, most specific first:
 * `$AGENT_RECALL_STORAGE` (a global storage folder given outright), a portable install, then each
 * product's user data folder on this platform (editorFolders.ts), code-server's, and the remote servers'
 * (a remote window's extension keeps its store on the remote host).
 */
export function extensionStorageFolders(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform, home = os.homedir()): string[] {
  const out: string[] = [];
  if (env['AGENT_RECALL_STORAGE']) out.push(path.resolve(env['AGENT_RECALL_STORAGE']));
  const userDirs: string[] = [];
  if (env['VSCODE_PORTABLE']) userDirs.push(path.join(env['VSCODE_PORTABLE'], 'user-data'));
  userDirs.push(...editorUserDataDirs(env, platform, home));
  userDirs.push(path.join(env['XDG_DATA_HOME'] || path.join(home, '.local', 'share'), 'code-server'));
  userDirs.push(...remoteServerDataDirs(home));
  for (const dir of userDirs) out.push(path.join(dir, 'User', 'globalStorage', EXTENSION_STORAGE_ID));
  return out;
}

export interface FoundStore {
  readonly file: string;
  /** Other flavours' stores of the same workspace, not chosen (older). */
  readonly others: readonly string[];
}

/**
 * The existing store of the workspace made of `folders` (of its `scope`) in any of `storageFolders`; the most recently
 * written one when several VS Code flavours indexed it. Undefined when none exists.
 */
export async function findWorkspaceStore(
  folders: readonly string[],
  storageFolders = extensionStorageFolders(),
  scope: RecallScope = 'workspace',
): Promise<FoundStore | undefined> {
  const found: Array<{ file: string; mtimeMs: number }> = [];
  for (const storage of storageFolders) {
    const file = workspaceStoreFile(storage, folders, scope);
    const at = await lastWritten(file);
    if (at !== undefined) found.push({ file, mtimeMs: at });
  }
  if (found.length === 0) return undefined;
  found.sort((a, b) => b.mtimeMs - a.mtimeMs);
  return { file: found[0]!.file, others: found.slice(1).map((f) => f.file) };
}

/** A store's last write: its WAL file's time when that is newer (WAL mode writes there first). */
async function lastWritten(file: string): Promise<number | undefined> {
  const main = await stat(file).catch(() => undefined);
  if (!main?.isFile()) return undefined;
  const wal = await stat(`${file}-wal`).catch(() => undefined);
  return Math.max(main.mtimeMs, wal?.mtimeMs ?? 0);
}

/**
 * Moves a store kept at an earlier location (the extension's per-workspace storage, before this rule) to
 * `to`, with its WAL and shared-memory files, when `to` has none yet: the memory survives the move. Across
 * file systems it is copied, then the old files removed. Returns whether something was moved.
 */
export async function adoptStore(from: string, to: string): Promise<boolean> {
  if ((await lastWritten(to)) !== undefined || (await lastWritten(from)) === undefined) return false;
  await mkdir(path.dirname(to), { recursive: true });
  for (const suffix of ['-wal', '-shm', '']) {
    const src = from + suffix;
    if (!(await stat(src).catch(() => undefined))) continue;
    try {
      await rename(src, to + suffix);
    } catch {
      await copyFile(src, to + suffix);
      await rm(src, { force: true });
    }
  }
  return true;
}
