import { stat } from 'node:fs/promises';
import type { DiscoveredSource, IndexReport } from '../core/memory';

/**
 * The sources the last whole run discovered, so that live indexing brings up to date only the transcripts an agent
 * just wrote: at 12,000 files, discovery's walk (a stat and a sniffed head per file) was most of a one-exchange run.
 * Valid for the discovery it came from (its options as `key`); a change it does not know (a new file, a file gone,
 * a folder event) takes a whole run, which discovers again.
 */
export class KnownSources {
  private known: { readonly key: string; readonly byPath: ReadonlyMap<string, DiscoveredSource> } | undefined;

  remember(key: string, discovered: readonly DiscoveredSource[]): void {
    this.known = { key, byPath: new Map(discovered.map((s) => [s.path, s])) };
  }

  forget(): void {
    this.known = undefined;
  }

  /** The sources of `changed`, when each is a source of the same discovery and still there; undefined: run whole. */
  async sourcesOf(key: string, changed: ReadonlySet<string>): Promise<DiscoveredSource[] | undefined> {
    if (!this.known || this.known.key !== key || changed.size === 0) return undefined;
    const sources = [...changed].map((p) => this.known!.byPath.get(p));
    if (sources.some((s) => s === undefined)) return undefined;
    const there = await Promise.all(sources.map((s) => stat(s!.path).then((st) => st.isFile(), () => false)));
    return there.every(Boolean) ? (sources as DiscoveredSource[]) : undefined;
  }
}

/**
 * A run over some sources, as the whole index now stands: the last whole run's report with the failures of the
 * sources read again replaced by this run's, and this run's figures (what it read, wrote and how long it took).
 */
export function mergeLiveReport(whole: IndexReport | undefined, live: IndexReport, read: readonly DiscoveredSource[]): IndexReport {
  if (!whole) return live;
  const again = new Set(read.map((s) => s.path));
  return {
    ...live,
    sources: whole.sources,
    failed: [...whole.failed.filter((f) => !again.has(f.path)), ...live.failed],
    ...(whole.unreadableRoots ? { unreadableRoots: whole.unreadableRoots } : {}),
  };
}
