import { type Stats, statSync } from 'node:fs';
import type { DiscoveryChanges, KeptDiscoveries, StoredDiscovery, StoredFolder } from '../store/discoveryMemo';
import { readdir, stat } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { mapLimited } from '../concurrency';
import type { SourceAdapter } from './adapter';
import {
  defaultAmpRoots, defaultContinueRoots, defaultCopilotCliRoots, defaultGeminiRoots, defaultKiloRoots, defaultKiroRoots, defaultOpenCodeRoots,
  defaultPiRoots, defaultQwenRoots, defaultUserDataDirs, defaultZedRoots, editorAgentRoots,
  defaultCrushRoots, defaultFactoryDroidRoots, defaultGooseRoots,
  defaultOpenHandsRoots, defaultKimiRoots, defaultWarpRoots, defaultAntigravityRoots, defaultJunieRoots,
} from './agentRoots';
import { crushDatabasesListedIn, isCrushDatabase, isCrushRegistry, isDefaultCrushDatabase } from './crush';
import { isGeminiSubagentPath } from './gemini';
import { isGooseDatabase } from './goose';
import { readHead } from './head';
import { isJunieSessionDir } from './junie';
import { isKimiSession, isKimiSubagent } from './kimi';
import { KILO_DB_RE } from './kiloPaths';
import { isKiroIdeChat, KIRO_DB_NAME } from './kiroPaths';
import { OPENCODE_DB_RE } from './opencode';
import { isOpenHandsConversation } from './openHands';
import { WARP_DB_NAME } from './warp';
import { ZED_DB_NAME } from './zedDb';
import { insideAny } from './paths';
import { ADAPTERS } from './registry';
import { TimeSlice } from '../timeSlice';

export { insideAny } from './paths';

/**
 * Finds the transcripts that belong to a workspace. JSONL sessions live outside the workspace (in the
 * agents' home folders) and are attributed by the `cwd` their records carry, never by encoded folder
 * names; SpecStory and Aider files live inside the workspace. Extra roots are taken whole.
 */
export interface DiscoverOptions {
  /** Folders of the open workspace. Empty: no cwd filter (index everything found). */
  readonly workspaceRoots: readonly string[];
  /** Folders holding Claude Code `projects/` trees. */
  readonly claudeRoots: readonly string[];
  /** Folders holding Codex `sessions/` trees. */
  readonly codexRoots: readonly string[];
  /**
   * Folders where the editor agents keep their sessions (Copilot's `workspaceStorage`, Gemini's `tmp`, ...;
   * see agentRoots.ts): searched like the Claude and Codex roots, every session attributed by its records.
   */
  readonly agentRoots?: readonly string[];
  /**
   * Folders searched for every format: markdown found here is always taken, and so is a session that records
   * no project (a Copilot chat export); one that records its cwd is still taken only inside the workspace.
   */
  readonly extraRoots: readonly string[];
  readonly includeSubagents: boolean;
  /**
   * Every project's sessions (`agentRecall.scope` "allHistory"): the workspace's folders are still walked for the
   * histories kept in them and still place a session that records no project, but a session of another project
   * is kept (with its project) instead of left out.
   */
  readonly allProjects?: boolean;
}

export interface DiscoveredSource {
  readonly path: string;
  readonly adapter: SourceAdapter;
  readonly project?: string;
  /** A file of many workspaces' sessions (`holdsManyProjects`): only conversations inside these folders are kept. */
  readonly within?: readonly string[];
}

/** Folders never walked (nor watched) below a transcript root: build output, dependencies, version control. */
export const SKIP_DIRS = new Set(['node_modules', '.git', 'dist', 'out', 'build', 'target', '.venv', 'venv', '__pycache__']);
/** How deep below a root transcripts are looked for (and watched). */
export const MAX_DEPTH = 10;
/** Files whose head is read at a time. */
const LOOKS = 16;

export function defaultClaudeRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  return [path.join(env['CLAUDE_CONFIG_DIR'] || path.join(os.homedir(), '.claude'), 'projects')];
}

export function defaultCodexRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  const home = env['CODEX_HOME'] || path.join(os.homedir(), '.codex');
  return [path.join(home, 'sessions'), path.join(home, 'archived_sessions')];
}

/** What a workspace's discovery is made of besides the agents' own home folders. */
export interface WorkspaceSources {
  readonly workspaceRoots: readonly string[];
  /** More Claude Code / Codex folders (settings), searched besides the defaults. */
  readonly claudeRoots?: readonly string[];
  readonly codexRoots?: readonly string[];
  readonly extraRoots?: readonly string[];
  readonly includeSubagents?: boolean;
  /** Keep every project's sessions (DiscoverOptions.allProjects). */
  readonly allProjects?: boolean;
  /**
   * VS Code-family user-data folders whose chat sessions are read (the host: its own, found from its
   * storage folder, and the configured ones). Absent: the platform's default VS Code folders.
   */
  readonly userDataDirs?: readonly string[];
}

/**
 * The discovery every front end uses (host and CLI alike): each agent's default home folders (their
 * environment overrides respected) plus the folders the user named.
 */
export function defaultDiscovery(w: WorkspaceSources, env: NodeJS.ProcessEnv = process.env): DiscoverOptions {
  return {
    workspaceRoots: w.workspaceRoots,
    claudeRoots: [...defaultClaudeRoots(env), ...(w.claudeRoots ?? [])],
    codexRoots: [...defaultCodexRoots(env), ...(w.codexRoots ?? [])],
    agentRoots: [
      ...(w.userDataDirs ?? defaultUserDataDirs(env)).flatMap(editorAgentRoots),
      ...defaultGeminiRoots(env),
      ...defaultContinueRoots(env),
      ...defaultOpenCodeRoots(env),
      ...defaultCopilotCliRoots(env),
      ...defaultQwenRoots(env),
      ...defaultAmpRoots(env),
      ...defaultPiRoots(env),
      ...defaultKiloRoots(env),
      ...defaultKiroRoots(env),
      ...defaultZedRoots(env),
      ...defaultGooseRoots(env),
      ...defaultCrushRoots(env),
      ...defaultFactoryDroidRoots(),
      ...defaultOpenHandsRoots(env),
      ...defaultKimiRoots(env),
      ...defaultWarpRoots(env),
      ...defaultAntigravityRoots(),
      ...defaultJunieRoots(env),
    ],
    extraRoots: w.extraRoots ?? [],
    includeSubagents: w.includeSubagents ?? true,
    ...(w.allProjects ? { allProjects: true } : {}),
  };
}

/**
 * The roots the user named (`extraRoots`) that are not folders, each with why: a missing agent folder is normal
 * (the agent is not installed), a folder the user named and mistyped must be said, not read as "nothing there".
 */
export async function unreadableRoots(roots: readonly string[]): Promise<Array<{ root: string; reason: string }>> {
  const out: Array<{ root: string; reason: string }> = [];
  for (const root of roots) {
    const st = await stat(root).catch((err: NodeJS.ErrnoException) => err);
    if (st instanceof Error) out.push({ root, reason: st.code === 'ENOENT' ? 'no such folder' : `cannot be read (${st.code ?? st.message})` });
    else if (!st.isDirectory()) out.push({ root, reason: 'not a folder' });
  }
  return out;
}

/** The folders outside the workspace a discovery reads (what live indexing watches). */
export function transcriptRoots(d: DiscoverOptions): string[] {
  return [...new Set([...d.claudeRoots, ...d.codexRoots, ...(d.agentRoots ?? []), ...d.extraRoots])];
}

/** A file's size and modification time, as a discovery saw them: what an index run's first look compares. */
export type SeenStat = Pick<Stats, 'size' | 'mtimeMs'>;

/**
 * What discoveries found of each structured file they looked into, kept for the next one in a long-lived process
 * (the extension's whole runs): a file whose size and time are those it had then is what it was, so its head is
 * not read and sniffed again (at 12,000 files that was most of a whole run). Only what the file itself and the
 * discovery's options decided is kept: a session placed by files beside it (a project found by `locateProject`,
 * a registry, a preferred copy, a database asked whether it holds sessions) is looked into every time. The folders
 * walked are kept too, each with its entries: one whose time has not changed is not listed again (`listing`).
 */
export class DiscoveryMemo {
  /**
   * `build`: the stamp of the build whose discoveries these are (codeStamp), when it is not this module's file: an
   * index run on a thread of its own runs another bundle of the same build, and keeps its memo under its host's key.
   */
  constructor(private readonly build = codeStamp()) {}

  private key = '';
  private readonly files = new Map<string, MemoEntry>();
  /** The files set or forgotten since the memo was last kept (`changes`), and whether it was emptied since. */
  private dirty = new Set<string>();
  private emptied = true;
  /** The store key whose kept entries this memo has (`restore`), or has kept itself. */
  private restored: string | undefined;
  /** The key a store keeps the entries of this memo's discovery under. */
  private keptKey = '';
  /** What each folder walked held (its names and their kinds), by the folder's times when it was listed. */
  private readonly folders = new Map<string, FolderListing>();
  /** The folders the discovery under way walked (the others are forgotten at its end). */
  private walked = new Set<string>();
  /** The folders kept or forgotten since the memo was last kept (`changes`). */
  private dirtyFolders = new Set<string>();

  /** The entries of `options`' discovery (another discovery's are forgotten). */
  for(options: DiscoverOptions): this {
    const key = JSON.stringify(options);
    if (key !== this.key) {
      this.key = key;
      this.files.clear();
      this.folders.clear();
      this.dirty.clear();
      this.dirtyFolders.clear();
      this.emptied = true;
      this.restored = undefined;
      this.keptKey = DiscoveryMemo.storeKey(options, this.build);
    }
    return this;
  }

  /**
   * The key a store keeps this memo's entries under for `options`' discovery: the options, the adapters in their
   * order (an entry names its adapter by its place) and the code's own file (another build may sniff otherwise).
   */
  static storeKey(options: DiscoverOptions, build = codeStamp()): string {
    return JSON.stringify([DISCOVERY_RULES, options, ADAPTERS.map((a) => `${a.agent}:${a.lineFormat}`), build]);
  }

  /** Whether the entries a store keeps for `options` are still to be taken (a process's first discovery of them). */
  restoring(options: DiscoverOptions): string | undefined {
    this.for(options);
    return this.restored === this.keptKey ? undefined : this.keptKey;
  }

  /**
   * Takes the entries a store kept for `key` (store/discoveryMemo.ts), each as an earlier discovery made it: it is
   * used only while its file has the size and time it had then, as one this memo made itself.
   */
  restore(key: string, kept: KeptDiscoveries): void {
    this.restored = key;
    if (this.files.size > 0 || this.folders.size > 0) return; // this process's own are as good (and newer)
    for (const f of kept.folders) {
      const entries = f.entries.map((e) => ({ name: e.slice(1), dir: e[0] === 'd', file: e[0] === 'f' }));
      this.folders.set(f.dir, { ino: f.ino, mtimeMs: f.mtimeMs, entries });
    }
    for (const e of kept.files) {
      const adapter = e.adapter === undefined ? undefined : ADAPTERS[e.adapter];
      if (e.adapter !== undefined && !adapter) continue;
      const source = adapter ? { path: e.path, adapter, ...(e.project !== undefined ? { project: e.project } : {}), ...(e.within ? { within: e.within } : {}) } : undefined;
      const beside = e.beside.map((b) => ({ file: b.file, st: b.size !== undefined && b.mtimeMs !== undefined ? { size: b.size, mtimeMs: b.mtimeMs } : undefined }));
      this.files.set(e.path, { size: e.size, mtimeMs: e.mtimeMs, source, beside });
    }
    this.emptied = false;
    this.dirty.clear();
    this.dirtyFolders.clear();
  }

  /** The changes last given were not kept: the next `changes` gives every entry, to replace the store's. */
  unkept(): void {
    this.emptied = true;
  }

  /** What changed since the memo was last kept (or restored), for its store; undefined when nothing did. */
  changes(): DiscoveryChanges | undefined {
    if (!this.keptKey) return undefined; // no discovery yet: nothing to say of the store's
    if (!this.emptied && this.dirty.size === 0 && this.dirtyFolders.size === 0) return undefined;
    const folders: StoredFolder[] = [];
    const foldersGone: string[] = [];
    for (const dir of this.emptied ? this.folders.keys() : this.dirtyFolders) {
      const f = this.folders.get(dir);
      if (f) folders.push({ dir, ino: f.ino, mtimeMs: f.mtimeMs, entries: f.entries.map((e) => `${e.dir ? 'd' : e.file ? 'f' : '-'}${e.name}`) });
      else foldersGone.push(dir);
    }
    const entries: StoredDiscovery[] = [];
    const gone: string[] = [];
    for (const file of this.emptied ? this.files.keys() : this.dirty) {
      const e = this.files.get(file);
      if (!e) {
        gone.push(file);
        continue;
      }
      const adapter = e.source ? ADAPTERS.indexOf(e.source.adapter) : undefined;
      if (adapter === -1) continue; // not one of ours (a test's): not kept
      entries.push({
        path: file,
        size: e.size,
        mtimeMs: e.mtimeMs,
        ...(adapter !== undefined ? { adapter } : {}),
        ...(e.source?.project !== undefined ? { project: e.source.project } : {}),
        ...(e.source?.within ? { within: e.source.within } : {}),
        beside: e.beside.map((b) => ({ file: b.file, ...(b.st ? { size: b.st.size, mtimeMs: b.st.mtimeMs } : {}) })),
      });
    }
    const changes = { key: this.keptKey, replace: this.emptied, entries, gone, folders, foldersGone };
    this.restored = changes.key;
    this.emptied = false;
    this.dirty.clear();
    this.dirtyFolders.clear();
    return changes;
  }

  /**
   * A folder's entries as listed at an earlier discovery, when it is the same folder with the time it had then
   * (`st`: its stat now) and it had not been changed for FOLDER_SETTLED_MS when it was listed; undefined otherwise. A folder's time
   * changes when an entry is added, removed or renamed in it, but only as finely as the file system's clock ticks:
   * a folder listed in the same tick as its last change could change again without a new time (the racy case git
   * guards against the same way).
   */
  listing(dir: string, st: Stats): readonly FolderEntry[] | undefined {
    this.walked.add(dir);
    const known = this.folders.get(dir);
    return known && known.ino === st.ino && known.mtimeMs === st.mtimeMs ? known.entries : undefined;
  }

  /** Keeps a folder's entries, listed at `listedAt` (epoch ms) when its stat before the listing was `st`. */
  list(dir: string, st: Stats, entries: readonly FolderEntry[], listedAt: number): void {
    this.walked.add(dir);
    if (listedAt - st.mtimeMs >= FOLDER_SETTLED_MS) {
      this.folders.set(dir, { ino: st.ino, mtimeMs: st.mtimeMs, entries });
      this.dirtyFolders.add(dir);
    } else if (this.folders.delete(dir)) this.dirtyFolders.add(dir);
  }

  /** At a discovery's end: the folders it did not walk are forgotten. */
  endWalk(): void {
    for (const dir of this.folders.keys()) {
      if (this.walked.has(dir)) continue;
      this.folders.delete(dir);
      this.dirtyFolders.add(dir);
    }
    this.walked = new Set();
  }

  /**
   * The file's classification when it was made at this size and time, the files it was located by (`stat`: theirs
   * now) being as they were then; `false` when there is none.
   */
  get(file: string, st: SeenStat | undefined, stat: (file: string) => SeenStat | undefined): DiscoveredSource | undefined | false {
    const e = this.files.get(file);
    if (!e || !st || e.size !== st.size || e.mtimeMs !== st.mtimeMs) return false;
    return e.beside.every((b) => sameStat(b.st, stat(b.file))) ? e.source : false;
  }

  set(file: string, st: SeenStat, source: DiscoveredSource | undefined, beside: MemoEntry['beside']): void {
    this.files.set(file, { size: st.size, mtimeMs: st.mtimeMs, source, beside });
    this.dirty.add(file);
  }

  delete(file: string): void {
    if (this.files.delete(file)) this.dirty.add(file);
  }

  /** Files no longer found are forgotten. */
  keepOnly(files: ReadonlySet<string>): void {
    for (const f of this.files.keys()) if (!files.has(f)) this.delete(f);
  }
}

/** The rules of discovery's classification, as the store's memo keeps them: a change to a sniffer or to how a project is found that the code's own file would not show (a test build) bumps it. */
const DISCOVERY_RULES = 1;

/** This code's file, by its size and time: another build (an update of the extension) does not take this one's memo. */
export function codeStamp(): string {
  try {
    const st = statSync(__filename);
    return `${st.size}:${st.mtimeMs}`;
  } catch {
    return '';
  }
}

/**
 * How long a folder must have stood unchanged when it is listed for its listing to be kept: far longer than any file
 * system's clock tick (2 s on FAT), so a change after the listing gives the folder a new time.
 */
const FOLDER_SETTLED_MS = 3000;

/** A folder's entry as a walk needs it. */
interface FolderEntry {
  readonly name: string;
  readonly dir: boolean;
  readonly file: boolean;
}

interface FolderListing {
  readonly ino: number;
  readonly mtimeMs: number;
  readonly entries: readonly FolderEntry[];
}

interface MemoEntry {
  readonly size: number;
  readonly mtimeMs: number;
  readonly source: DiscoveredSource | undefined;
  /** The files beside it its project was looked for in (SourceAdapter.locatesFrom), as they were (undefined: absent). */
  readonly beside: ReadonlyArray<{ readonly file: string; readonly st: SeenStat | undefined }>;
}

function sameStat(a: SeenStat | undefined, b: SeenStat | undefined): boolean {
  return a === b || (a !== undefined && b !== undefined && a.size === b.size && a.mtimeMs === b.mtimeMs);
}

/** A file's size and time now, undefined when it is not a file (absent, unreadable). */
function statNow(file: string): SeenStat | undefined {
  try {
    const st = statSync(file, { throwIfNoEntry: false });
    return st?.isFile() ? { size: st.size, mtimeMs: st.mtimeMs } : undefined;
  } catch {
    return undefined;
  }
}

/** What a discovery found, with the size and time it saw of each file (for the run's first look). */
export interface Discovery {
  readonly sources: DiscoveredSource[];
  readonly seen: ReadonlyMap<string, SeenStat>;
}

export async function discoverSources(options: DiscoverOptions): Promise<DiscoveredSource[]> {
  return (await discover(options)).sources;
}

/**
 * Discovery, the files it found stat'ed first (a stat each, on this thread in slices: ~3 µs a file, where one
 * through the thread pool costs ~30 µs of this thread's time): an index run's first look takes those sizes and
 * times instead of asking again, and `memo` keeps what the files' heads said for the next discovery.
 */
export async function discover(options: DiscoverOptions, memo?: DiscoveryMemo): Promise<Discovery> {
  const found = new Map<string, DiscoveredSource>();
  /** Structured files to sniff, and whether a root the user named holds them. */
  const candidates = new Map<string, boolean>();
  const markdown = ADAPTERS.filter((a) => a.lineFormat === 'markdown');
  /** The folders a session must lie in to be kept; undefined: every project's (no workspace, or all history). */
  const scope = options.workspaceRoots.length > 0 && !options.allProjects ? options.workspaceRoots : undefined;

  /** `inWorkspace`: found by walking a workspace folder; `named`: found below a root the user named. */
  const visit = (file: string, inWorkspace: boolean, named: boolean): void => {
    // JSON documents and databases are looked at outside the workspace only: a project's own are not transcripts,
    // but for the database Crush keeps in a project's `.crush` folder
    if (
      file.endsWith('.jsonl') ||
      isDefaultCrushDatabase(file) ||
      (!inWorkspace && (file.endsWith('.json') || isAgentDatabase(file) || isKiroIdeChat(file)))
    ) {
      candidates.set(file, named || (candidates.get(file) ?? false));
      return;
    }
    const md = markdown.find((a) => a.matchesPath(file));
    if (md && (inWorkspace || named || !scope || insideAny(file, scope))) {
      found.set(file, { path: file, adapter: md });
    }
  };
  memo?.for(options);
  const list = lister(memo);
  // Markdown histories count when they lie in the workspace or in a root the user named explicitly.
  for (const root of options.workspaceRoots) await walk(root, (f) => visit(f, true, false), 4, list);
  for (const root of options.extraRoots) await walk(root, (f) => visit(f, false, true), MAX_DEPTH, list);
  for (const root of [...options.claudeRoots, ...options.codexRoots, ...(options.agentRoots ?? [])]) {
    // a root may be one file (Cursor's database)
    if ((await stat(root).catch(() => undefined))?.isFile()) visit(root, false, false);
    else await walk(root, (f) => visit(f, false, false), MAX_DEPTH, list);
  }
  memo?.endWalk();

  // Crush lists each project's database, wherever its data directory is, in its projects.json
  const listedProject = new Map<string, string>();
  for (const file of [...candidates.keys()].filter(isCrushRegistry)) {
    for (const db of await crushDatabasesListedIn(file)) {
      if (!(await stat(db.file).catch(() => undefined))?.isFile()) continue;
      if (!candidates.has(db.file)) candidates.set(db.file, false);
      listedProject.set(db.file, db.project);
    }
  }

  const structured = ADAPTERS.filter((a) => a.lineFormat !== 'markdown');
  // the files beside the transcripts that placed them (SourceAdapter.locatesFrom), stat'ed once a discovery
  const besideStats = new Map<string, SeenStat | undefined>();
  const besideStat = (file: string): SeenStat | undefined => {
    if (!besideStats.has(file)) besideStats.set(file, statNow(file));
    return besideStats.get(file);
  };
  type Classified = { source?: DiscoveredSource; own: boolean; beside?: MemoEntry['beside'] };
  /**
   * What one structured file is: a source (with its project), or nothing to read here; `own`: decided by the file
   * (its path and head), the files `beside` it and the options alone, so the same while they are.
   */
  const classify = async (file: string, named: boolean): Promise<Classified> => {
    if (!options.includeSubagents && isSubagentPath(file)) return { own: true };
    const matching = structured.filter((a) => a.matchesPath(file));
    if (matching.length === 0) return { own: true };
    const claimed = matching.find((a) => a.claimsPath?.(file));
    if (claimed?.holdsManyProjects) return { source: { path: file, adapter: claimed, ...(scope ? { within: scope } : {}) }, own: true };
    // a database is never read as lines: its head tells nothing, and a workspace's storage holds hundreds of them
    const head = claimed?.lineFormat === 'sqlite' ? [] : await readHead(file).catch(() => undefined);
    if (!head) return { own: false };
    const adapter = claimed ?? matching.find((a) => a.sniff(head));
    if (!adapter) return { own: true };
    const preferred = adapter.preferredCopy?.(file);
    if (preferred && (await stat(preferred).catch(() => undefined))?.isFile()) return { own: false };
    const probed = adapter.probeProject(head);
    // the files a project is located by, as they are before it reads them (a change after shows at the next discovery)
    const locating = probed === undefined && adapter.locateProject;
    const beside: Array<MemoEntry['beside'][number]> = locating && adapter.locatesFrom ? adapter.locatesFrom(file).map((f) => ({ file: f, st: besideStat(f) })) : [];
    // and those it names as it reads them (a file named inside another), each stat'ed before it is read
    const reading = locating && adapter.namesWhatLocates ? (f: string): void => void beside.push({ file: f, st: besideStat(f) }) : undefined;
    const recorded =
      probed ??
      (await adapter.locateProject?.(file, head, options.workspaceRoots, reading).catch(() => undefined)) ??
      listedProject.get(file);
    // what the file and the files it names decided alone: no other file was asked (a preferred copy, a project found
    // by files not known from its path, a registry)
    const own =
      !preferred && !adapter.holdsSessions && claimed?.lineFormat !== 'sqlite' && !listedProject.has(file) && (!locating || adapter.locatesFrom !== undefined || adapter.namesWhatLocates === true);
    // one rule for every agent: a session counts where its records place it; only a file of a form that records
    // no project (a chat export), in a folder the user named for this workspace, is this workspace's
    const project = recorded ?? (named && adapter.recordsNoProject?.(file) ? options.workspaceRoots[0] : undefined);
    if (scope && !(project && insideAny(project, scope))) return { own, beside };
    if (adapter.holdsSessions && !(await adapter.holdsSessions(file).catch(() => false))) return { own, beside };
    return { source: { path: file, adapter, ...(project ? { project } : {}) }, own, beside };
  };
  const files = [...candidates.keys()].sort();
  // the markdown histories too: the run's first look takes every size and time from here
  const seen = await statFiles([...files, ...found.keys()]);
  memo?.keepOnly(new Set(files));
  // files are looked at several at a time: each look is a few waits on the disk (open, read, close), and a history
  // of 3,000 files spent most of its discovery waiting on them one by one; the looks whose reads end together run
  // in one task, so they share a slice of the thread's time (a first index reads 12,096 heads)
  const slice = new TimeSlice(8);
  const sources = await mapLimited(files, LOOKS, async (file) => {
    await slice.yieldIfDue();
    const st = seen.get(file);
    const known = memo ? memo.get(file, st, besideStat) : false;
    if (known !== undefined && known !== false) return known;
    if (known === undefined) return undefined;
    const { source, own, beside } = await classify(file, candidates.get(file)!);
    if (memo && st && own) memo.set(file, st, source, beside ?? []);
    else memo?.delete(file);
    return source;
  });
  for (const source of sources) if (source) found.set(source.path, source);
  return { sources: [...found.values()].sort((a, b) => a.path.localeCompare(b.path)), seen };
}

/** Each file's size and time (none for a file gone or unreadable), a slice of the event loop's time at a time. */
async function statFiles(files: readonly string[]): Promise<Map<string, SeenStat>> {
  const seen = new Map<string, SeenStat>();
  const slice = new TimeSlice(8);
  for (const file of files) {
    const st = statNow(file); // none: read as before, its look says what is wrong
    if (st) seen.set(file, st);
    await slice.yieldIfDue();
  }
  return seen;
}

function isSubagentPath(file: string): boolean {
  return /[\\/]subagents[\\/]/.test(file) || /^agent-[0-9a-f]+\.jsonl$/.test(path.basename(file)) || isKimiSubagent(file) || isGeminiSubagentPath(file);
}

/**
 * Calls `onFile` for every file below `dir`. VS Code's `workspaceStorage` holds every extension's
 * per-workspace state; only its `chatSessions` folders and each workspace's `state.vscdb` (Trae keeps its chats
 * there) are of interest, so the rest of it is not walked.
 */
async function walk(dir: string, onFile: (file: string) => void, depth: number, list: (dir: string) => Promise<readonly FolderEntry[] | undefined>): Promise<void> {
  if (depth < 0) return;
  const entries = await list(dir);
  if (!entries) return; // a missing or unreadable root is normal (agent not installed)
  const storage = path.basename(dir) === 'workspaceStorage';
  const names = entries.map((e) => e.name);
  const openCodeData = isOpenCodeData(dir, names);
  // an OpenHands conversation's events are read with its state file, not walked as sources
  const conversation = isOpenHandsConversation(names);
  // what path.join gives for every entry (an entry's name is one segment, never `.` or `..`): the folder's part once
  // (a join normalizes the whole path: ~3 µs an entry, 13,500 of them at 1 GB)
  const prefix = path.join(dir, 'x').slice(0, -1);
  for (const e of entries) {
    const full = prefix + e.name;
    if (e.dir) {
      if (SKIP_DIRS.has(e.name) || notOpenCodeSessions(dir, e.name, openCodeData) || isCopilotCliSession(dir) || conversation) continue;
      if ((isKimiSession(names) && e.name !== 'agents') || isJunieSessionDir(path.basename(dir))) continue;
      if (storage) {
        await walk(path.join(full, 'chatSessions'), onFile, 0, list);
        if ((await stat(path.join(full, 'state.vscdb')).catch(() => undefined))?.isFile()) onFile(path.join(full, 'state.vscdb'));
      } else await walk(full, onFile, depth - 1, list);
    } else if (e.file) onFile(full);
  }
}

/**
 * How a discovery lists a folder: with a memo, a folder whose times are those it had when an earlier discovery
 * listed it is not read again (a stat on this thread, ~3 µs, in slices: a listing through the thread pool is a
 * round trip to it, and a walk makes them one after the other: at 1,500 folders that was most of a whole run's
 * discovery on a busy machine).
 */
function lister(memo: DiscoveryMemo | undefined): (dir: string) => Promise<readonly FolderEntry[] | undefined> {
  const slice = new TimeSlice(8);
  return async (dir) => {
    let st: Stats | undefined;
    if (memo) {
      await slice.yieldIfDue();
      try {
        st = statSync(dir, { throwIfNoEntry: false });
      } catch {
        st = undefined;
      }
      if (!st?.isDirectory()) return undefined;
      const known = memo.listing(dir, st);
      if (known) return known;
    }
    const listedAt = Date.now();
    try {
      const entries = (await readdir(dir, { withFileTypes: true })).map((e) => ({ name: e.name, dir: e.isDirectory(), file: e.isFile() }));
      if (memo && st) memo.list(dir, st, entries, listedAt);
      return entries;
    } catch {
      return undefined;
    }
  };
}

/**
 * A write to an agent's database: to the database itself or, as a WAL database is written, to its
 * write-ahead log (`<db>-wal`). Its shared-memory index (`-shm`) changes on reads too, ours included.
 */
export function isAgentDatabaseWrite(file: string): boolean {
  return isAgentDatabase(file.replace(/-wal$/, ''));
}

/**
 * Cursor's global database (and Trae's), OpenCode's, Kilo Code's, Kiro CLI's, Zed's, Warp's, Goose's and Crush's:
 * the databases discovery looks at (Goose's by its path: its name is common).
 */
export function isAgentDatabase(file: string): boolean {
  const name = path.basename(file);
  return (
    name === 'state.vscdb' || OPENCODE_DB_RE.test(name) || KILO_DB_RE.test(name) || name === KIRO_DB_NAME || name === ZED_DB_NAME ||
    name === WARP_DB_NAME || isGooseDatabase(file) || isCrushDatabase(file)
  );
}

/**
 * OpenCode's data folder (`opencode`, holding its `storage` folder or its database), or Kilo Code's (`kilo`, the
 * same layout), by the names in it.
 */
export function isOpenCodeData(dir: string, names: readonly string[]): boolean {
  const base = path.basename(dir);
  if (base === 'kilo') return names.some((n) => n === 'storage' || KILO_DB_RE.test(n));
  return base === 'opencode' && names.some((n) => n === 'storage' || OPENCODE_DB_RE.test(n));
}

/**
 * A Copilot CLI session's folder (`session-state/<id>/`): its log and `workspace.yaml` are in it, its subfolders
 * (`checkpoints/`, the `files/` the agent made) hold no transcripts, so they are not walked (nor watched).
 */
export function isCopilotCliSession(dir: string): boolean {
  return path.basename(path.dirname(dir)) === 'session-state';
}

/**
 * OpenCode's data folder holds snapshots (git object stores), logs and binaries besides its sessions, and its
 * storage a file per message and per part: only its database and session files are sources (their messages
 * and parts are read with them), so nothing else there is walked.
 */
function notOpenCodeSessions(dir: string, name: string, openCodeData: boolean): boolean {
  if (openCodeData) return name !== 'storage';
  return path.basename(dir) === 'storage' && ['opencode', 'kilo'].includes(path.basename(path.dirname(dir))) && name !== 'session';
}
