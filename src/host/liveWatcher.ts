import * as fs from 'node:fs';
import { readdir } from 'node:fs/promises';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { namesChatTable } from '../core/sources/cursorDb';
import { isAgentDatabase, isAgentDatabaseWrite } from '../core/sources/discover';
import { holdsTraeSessions, isTraeGlobalDb, isWorkspaceStateDb } from '../core/sources/traeDb';
import { databaseState } from '../core/sources/walDatabase';
import { watchFolders } from './folderWatcher';
import type { Config } from './config';
import type { IndexService } from './indexService';
import { Disposable } from './lifecycle';
import { log } from './log';

/** Quiet time after the last write before indexing: agents write a reply in several appends. */
const DEBOUNCE_MS = 150;
/** How often to look again for a transcript root that does not exist yet (e.g. ~/.codex before the first run). */
const ROOT_RETRY_MS = 30_000;

/**
 * Live indexing: watches the transcript roots (outside the workspace: each root's tree, a database's folder;
 * inside it, a workspace file watcher for SpecStory and Aider histories) and runs the incremental indexer shortly after an
 * agent writes, so a new exchange is searchable about a second later.
 */
export class LiveWatcher extends Disposable {
  private timer: NodeJS.Timeout | undefined;
  /** The transcripts written since the last run started; undefined: a change no file named (look at every source). */
  private pending: Set<string> | undefined = new Set();
  private retry: NodeJS.Timeout | undefined;
  private readonly watchers = new Map<string, { close(): void }>();
  private readonly missing = new Set<string>();
  /** The last state seen of each agent database watched (`written`). */
  private readonly databases = new Map<string, string>();
  private generation = 0;
  private readonly triggered = this.register(new vscode.EventEmitter<void>());
  /** Fires when a change in a transcript folder starts an index run. */
  readonly onDidTrigger = this.triggered.event;

  constructor(private readonly index: IndexService, private readonly config: Config) {
    super();
    const ws = this.register(vscode.workspace.createFileSystemWatcher('**/{.specstory/history/*.md,.aider.chat.history.md}'));
    this.register(ws.onDidChange((uri) => this.schedule(uri.fsPath)));
    this.register(ws.onDidCreate((uri) => this.schedule(uri.fsPath)));
    // Crush keeps a project's database inside it: a write to it (or to its log) starts a run like any agent database's
    const crush = this.register(vscode.workspace.createFileSystemWatcher('**/.crush/{crush.db,crush.db-wal}'));
    this.register(crush.onDidChange((uri) => this.changed(uri.fsPath)));
    this.register(crush.onDidCreate((uri) => this.changed(uri.fsPath)));
    this.register({
      dispose: () => {
        clearTimeout(this.timer);
        this.stop();
      },
    });
    // after activation: watching walks the transcript roots, which activate() should not wait for
    this.retry = setTimeout(() => this.start(), 0);
  }

  /** (Re)starts the watchers, e.g. after the roots setting changed. A run already scheduled still runs. */
  start(): void {
    this.stop();
    if (!this.config.liveIndexing) {
      clearTimeout(this.timer);
      return;
    }
    this.watchRoots(new Set(this.index.transcriptRoots()), false);
  }

  /**
   * Watches each root that exists. A missing one (e.g. ~/.codex before the first run) is looked at again later,
   * alone: restarting every watcher would walk every root again and drop the events not yet delivered to the
   * watchers it closes. A root that appears may already hold transcripts, so finding one late starts a run.
   */
  private watchRoots(roots: Iterable<string>, late: boolean): void {
    let found = false;
    for (const root of roots) {
      const st = statOrUndefined(root);
      if (!st) {
        this.missing.add(root);
        continue;
      }
      this.missing.delete(root);
      found = true;
      if (st.isFile()) void this.watchDatabase(root, this.generation);
      else if (process.platform === 'linux') this.watchTree(root);
      else this.watch(root, root, true, (name) => isTranscriptChange(root, name));
    }
    if (late && found) this.schedule();
    this.lookLater();
  }

  /** A root that went away is looked for again, like one missing at the start (an agent may make it again). */
  private lost(root: string): void {
    this.watchers.get(root)?.close();
    this.watchers.delete(root);
    this.missing.add(root);
    this.lookLater();
  }

  private lookLater(): void {
    if (this.retry || this.missing.size === 0) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      this.watchRoots([...this.missing], true);
    }, ROOT_RETRY_MS);
  }

  /**
   * A root that is one file is a database (Cursor's, Trae's global one, or the one `KILO_DB` names): its folder is
   * watched for its own names only, since a WAL database's writes land in its -wal file beside it. VS Code's own
   * state.vscdb (no chats, written often) is left alone.
   */
  private async watchDatabase(file: string, generation: number): Promise<void> {
    const chats = path.basename(file) !== 'state.vscdb' || isTraeGlobalDb(file) || (await namesChatTable(file).catch(() => false));
    if (!chats || generation !== this.generation) return;
    await this.written(file);
    this.watch(file, path.dirname(file), false, (name) => isWriteTo(file, name));
  }

  /** Linux: folder by folder (folderWatcher.ts); Node's recursive watch there watches every file below the root. */
  private watchTree(root: string): void {
    let warned = false;
    const w = watchFolders(root, {
      change: (name) => {
        if (isTranscriptChange(root, name)) this.changed(path.join(root, name));
      },
      error: (err) => {
        // once per root: running out of watches fails every folder after the first
        if (!warned) log.warn(`Cannot watch a folder of ${root}: ${err.message}`);
        warned = true;
      },
      gone: () => this.lost(root),
    });
    this.watchers.set(root, w);
    // OpenCode's database lies in its data folder, Goose's in its sessions folder
    void w.ready.then(async () => {
      for (const name of await readdir(root).catch(() => [])) if (isAgentDatabase(path.join(root, name))) await this.written(path.join(root, name));
    });
  }

  /** Elsewhere Node watches a tree natively; a database's folder is watched alone. */
  private watch(root: string, dir: string, recursive: boolean, relevant: (name: string) => boolean): void {
    try {
      const w = fs.watch(dir, { recursive }, (_event, name) => {
        if (!name) this.schedule();
        else if (relevant(String(name))) this.changed(path.join(dir, String(name)));
      });
      w.on('error', (err) => {
        log.warn(`Stopped watching ${root}: ${err.message}`);
        this.lost(root);
      });
      this.watchers.set(root, w);
    } catch (err) {
      log.warn(`Cannot watch ${root}: ${(err as Error).message}`);
    }
  }

  /**
   * A transcript's change starts a run; a database's only when it was written (see `written`), and a workspace's
   * storage database (every VS Code window writes its own) only when it holds Trae's chats.
   */
  private changed(file: string): void {
    if (isAgentDatabaseWrite(file)) {
      const db = file.replace(/-wal$/, '');
      void this.written(db)
        .then(async (yes) => yes && (!isWorkspaceStateDb(db) || (await holdsTraeSessions(db).catch(() => false))))
        .then((yes) => yes && this.schedule(db));
    } else this.schedule(file);
  }

  /**
   * Whether the agent's database changed since last seen (and remembers how it is now). Reading it touches its
   * files without writing it: a read-only connection makes an empty -wal and -shm, and as root it changes their
   * owner (measured); each touch would start a run, whose read touches it again.
   */
  private async written(db: string): Promise<boolean> {
    const st = await databaseState(db).catch(() => undefined);
    const now = st ? `${st.size}:${Math.floor(st.mtimeMs)}` : 'gone';
    if (this.databases.get(db) === now) return false;
    this.databases.set(db, now);
    return true;
  }

  /** A run shortly after the last write; `file`: the transcript written (none: look at every source). */
  private schedule(file?: string): void {
    if (!this.config.liveIndexing) return;
    if (file === undefined) this.pending = undefined;
    else this.pending?.add(file);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      const changed = this.pending;
      this.pending = new Set();
      this.triggered.fire();
      void this.index.index(changed ? { changed: [...changed] } : {});
    }, DEBOUNCE_MS);
  }

  private stop(): void {
    this.generation++; // a database check still running belongs to the watchers stopped here
    clearTimeout(this.retry);
    this.retry = undefined;
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
    this.missing.clear();
  }
}

/**
 * JSONL and JSON transcripts, the Kiro IDE's older `.chat` files, Antigravity's notes and the agents' databases
 * (OpenCode's, Goose's: a write to it or its log; by their path, `name` being relative to the root); in VS Code's workspaceStorage (every extension's state) only the chat session folders and each
 * workspace's own database (Trae's chats), so other extensions' writes do not trigger indexing.
 */
function isTranscriptChange(root: string, name: string): boolean {
  if (/[\\/]workspaceStorage$/.test(root)) {
    return (/\.jsonl?$/.test(name) && /(^|[\\/])chatSessions[\\/]/.test(name)) || /^[^\\/]+[\\/]state\.vscdb$/.test(name);
  }
  // Antigravity's notes beside its log are read with it
  if (/[\\/]brain$/.test(root) && /\.md$/.test(name)) return true;
  return /\.(?:jsonl?|chat)$/.test(name) || isAgentDatabaseWrite(path.join(root, name));
}

/** A write to the database `file` (the root) or to its write-ahead log, by a name in its folder. */
function isWriteTo(file: string, name: string): boolean {
  const base = path.basename(file);
  return name === base || name === `${base}-wal`;
}

function statOrUndefined(file: string): fs.Stats | undefined {
  try {
    return fs.statSync(file);
  } catch {
    return undefined;
  }
}
