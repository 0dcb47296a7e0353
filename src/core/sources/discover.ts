import { readdir } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import type { SourceAdapter } from './adapter';
import { readHead } from './head';
import { ADAPTERS } from './registry';

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
  /** Folders searched for every format: markdown found here is always taken, JSONL still filtered by cwd. */
  readonly extraRoots: readonly string[];
  readonly includeSubagents: boolean;
}

export interface DiscoveredSource {
  readonly path: string;
  readonly adapter: SourceAdapter;
  readonly project?: string;
}

const SKIP_DIRS = new Set(['node_modules', '.git', 'dist', 'out', 'build', 'target', '.venv', 'venv', '__pycache__']);
const MAX_DEPTH = 10;

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
    extraRoots: w.extraRoots ?? [],
    includeSubagents: w.includeSubagents ?? true,
  };
}

/** The folders outside the workspace a discovery reads (what live indexing watches). */
export function transcriptRoots(d: DiscoverOptions): string[] {
  return [...new Set([...d.claudeRoots, ...d.codexRoots, ...d.extraRoots])];
}

export async function discoverSources(options: DiscoverOptions): Promise<DiscoveredSource[]> {
  const found = new Map<string, DiscoveredSource>();
  const jsonlCandidates = new Set<string>();
  const markdown = ADAPTERS.filter((a) => a.lineFormat === 'markdown');

  const visit = (file: string, fromWorkspace: boolean): void => {
    if (file.endsWith('.jsonl')) {
      jsonlCandidates.add(file);
      return;
    }
    const md = markdown.find((a) => a.matchesPath(file));
    if (md && (fromWorkspace || options.workspaceRoots.length === 0 || insideAny(file, options.workspaceRoots))) {
      found.set(file, { path: file, adapter: md });
    }
  };
  // Markdown histories count when they lie in the workspace or in a root the user named explicitly.
  for (const root of options.workspaceRoots) await walk(root, (f) => visit(f, true), 4);
  for (const root of options.extraRoots) await walk(root, (f) => visit(f, true), MAX_DEPTH);
  for (const root of [...options.claudeRoots, ...options.codexRoots]) await walk(root, (f) => visit(f, false), MAX_DEPTH);

  const jsonl = ADAPTERS.filter((a) => a.lineFormat === 'jsonl');
  for (const file of [...jsonlCandidates].sort()) {
    if (!options.includeSubagents && isSubagentPath(file)) continue;
    const head = await readHead(file).catch(() => undefined);
    if (!head) continue;
    const adapter = jsonl.find((a) => a.sniff(head));
    if (!adapter) continue;
    const project = adapter.probeProject(head);
    if (options.workspaceRoots.length > 0 && !(project && insideAny(project, options.workspaceRoots))) continue;
    found.set(file, { path: file, adapter, ...(project ? { project } : {}) });
  }
  return [...found.values()].sort((a, b) => a.path.localeCompare(b.path));
}

function isSubagentPath(file: string): boolean {
  return /[\\/]subagents[\\/]/.test(file) || /^agent-[0-9a-f]+\.jsonl$/.test(path.basename(file));
}

/** True when `p` equals or lies below one of `roots` (case-insensitive for Windows-style paths). */
export function insideAny(p: string, roots: readonly string[]): boolean {
  return roots.some((root) => {
    const windows = /^[A-Za-z]:[\\/]/.test(p) || /^[A-Za-z]:[\\/]/.test(root);
    const lib = windows ? path.win32 : path.posix;
    const rel = lib.relative(root, p);
    return rel === '' || (!rel.startsWith('..') && !lib.isAbsolute(rel));
  });
}

async function walk(dir: string, onFile: (file: string) => void, depth: number): Promise<void> {
  if (depth < 0) return;
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return; // a missing or unreadable root is normal (agent not installed)
  }
  for (const e of entries) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (SKIP_DIRS.has(e.name)) continue;
      await walk(full, onFile, depth - 1);
    } else if (e.isFile()) onFile(full);
  }
}
