import * as fs from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import * as path from 'node:path';
import { isCopilotCliSession, isOpenCodeData, MAX_DEPTH, SKIP_DIRS } from '../core/sources/discover';
import { isJunieSessionDir } from '../core/sources/junie';
import { isKimiSession } from '../core/sources/kimi';
import { isOpenHandsConversation } from '../core/sources/openHands';

/** A running watch of a transcript root. */
export interface FolderWatch {
  close(): void;
  /** Settles when the folders there were at the start are watched. */
  readonly ready: Promise<void>;
  /** How many folders are watched (one watch each). */
  readonly folders: number;
}

/**
 * Watches a transcript root folder by folder: one non-recursive watch per folder (it reports its files' writes),
 * and only folders transcripts can be in. Node's recursive watch on Linux watches every file below the root, found
 * by a synchronous walk: VS Code's workspaceStorage (every extension's state) or OpenCode's data folder (git
 * object stores) held the extension host 0.3 s per 8,500 entries and took as many inotify watches
 * (test/bench/liveWatch.mjs). A folder made later is watched from its first event on, and the files already in it
 * are reported.
 */
export function watchFolders(root: string, on: FolderEvents): FolderWatch {
  return new FolderTree(root, on);
}

export interface FolderEvents {
  /** A file or folder below the root changed: its path relative to the root. */
  readonly change: (relative: string) => void;
  /** A folder could not be watched (e.g. the system's limit of watches is reached). */
  readonly error: (err: Error) => void;
  /** The root itself was removed: nothing is watched any more. */
  readonly gone: () => void;
}

/**
 * Which of `dir`'s subfolders can hold transcripts, by `dir`'s name and what it holds: in VS Code's
 * workspaceStorage, each workspace's `chatSessions` only (the rest is other extensions' state); in OpenCode's data
 * folder, its `storage` only (sessions, messages and parts; not its snapshots, logs or binaries); in an OpenHands
 * conversation's folder, its `events`; in a Kimi Code session's, its `agents`; in a Junie session's, none (its task
 * folders hold the agent's state); in a Copilot CLI session's folder, none (its log is in it; its checkpoints and
 * the files the agent made are below).
 */
export function watchesSubfolder(dir: string, names: readonly string[], name: string): boolean {
  if (SKIP_DIRS.has(name)) return false;
  if (path.basename(path.dirname(dir)) === 'workspaceStorage') return name === 'chatSessions';
  if (isOpenCodeData(dir, names)) return name === 'storage';
  if (isOpenHandsConversation(names)) return name === 'events';
  if (isKimiSession(names)) return name === 'agents';
  if (isJunieSessionDir(path.basename(dir))) return false;
  return !isCopilotCliSession(dir);
}

class FolderTree implements FolderWatch {
  private readonly watchers = new Map<string, fs.FSWatcher>();
  private closed = false;
  readonly ready: Promise<void>;

  constructor(
    private readonly root: string,
    private readonly on: FolderEvents,
  ) {
    this.ready = this.add(root, MAX_DEPTH, false);
  }

  get folders(): number {
    return this.watchers.size;
  }

  /** Watches `dir` and the folders below it; `late`: made after the watch began, so the files in it are news. */
  private async add(dir: string, depth: number, late: boolean): Promise<void> {
    if (this.closed || this.watchers.has(dir)) return;
    let w: fs.FSWatcher;
    try {
      w = fs.watch(dir, (event, name) => this.changed(dir, event, name ? String(name) : undefined, depth));
    } catch (err) {
      if (!gone(err)) this.on.error(err as Error);
      return;
    }
    w.on('error', (err) => {
      this.forget(dir);
      if (!gone(err)) this.on.error(err);
    });
    this.watchers.set(dir, w);
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    const names = entries.map((e) => e.name);
    for (const e of entries) {
      if (e.isDirectory()) {
        if (depth > 0 && watchesSubfolder(dir, names, e.name)) await this.add(path.join(dir, e.name), depth - 1, late);
      } else if (late) this.report(path.join(dir, e.name));
    }
  }

  close(): void {
    this.closed = true;
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
  }

  private changed(dir: string, event: fs.WatchEventType, name: string | undefined, depth: number): void {
    if (this.closed) return;
    const full = name === undefined ? dir : path.join(dir, name);
    this.report(full);
    // a file written ('change') is all an agent's reply makes: only a 'rename' (made, removed, moved) asks for I/O
    if (event !== 'rename') return;
    // the root's own watch also hears of the root's removal
    if (dir === this.root) void stat(this.root).catch(() => this.rootGone());
    if (name === undefined || depth === 0) return;
    // a folder made (watch it) or removed (stop watching it and what was below it)
    void stat(full).then(
      async (st) => {
        if (!st.isDirectory() || this.watchers.has(full)) return;
        const names = await readdir(dir).catch(() => [name]);
        if (watchesSubfolder(dir, names, name)) await this.add(full, depth - 1, true);
      },
      () => this.forget(full),
    );
  }

  private report(full: string): void {
    if (!this.closed) this.on.change(path.relative(this.root, full));
  }

  private rootGone(): void {
    if (this.closed) return;
    this.close();
    this.on.gone();
  }

  private forget(dir: string): void {
    for (const [d, w] of this.watchers) {
      if (d === dir || d.startsWith(dir + path.sep)) {
        w.close();
        this.watchers.delete(d);
      }
    }
  }
}

/** The folder went away (or was never one): nothing to watch, nothing to report. */
function gone(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
