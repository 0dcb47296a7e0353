import { ROOM_TYPES, type RoomType } from './model';
import { compareText } from './order';
import { insideAny } from './sources/paths';
import type { RoomSort, RoomSummary } from './store/browse';

/**
 * The Rooms view's model (issue 39: 165 flat concept rooms for 1,003 exchanges were no room explorer): rooms are
 * grouped by the project they belong to (README.md of one repository is not README.md of another), then by
 * type; within a type the first ROOMS_BEFORE_FOLD rooms in the chosen order (largest, or most recent) are
 * shown and the long tail is folded under "N more…". A tree of one project starts at its types. A filter
 * shows every room that matches, unfolded.
 */

/** Rooms shown per type before the rest is folded: about what a side-bar pane shows at once. */
export const ROOMS_BEFORE_FOLD = 8;

export interface RoomTypeGroup {
  readonly type: RoomType;
  /** The rooms shown, in the chosen order. */
  readonly first: readonly RoomSummary[];
  /** The rest, in the same order, folded under "N more…". */
  readonly more: readonly RoomSummary[];
}

export interface RoomProject {
  /** The project's folder; undefined for rooms of exchanges whose agent recorded none. */
  readonly project?: string;
  /** The folder's name, with as many of its parents as tell it from the other projects' (`ocodex/codex-rs`). */
  readonly label: string;
  /** Whether the project lies in one of the workspace's folders. */
  readonly inWorkspace: boolean;
  readonly rooms: number;
  readonly lastAt?: string;
  readonly types: readonly RoomTypeGroup[];
}

export interface RoomTreeOptions {
  readonly sort: RoomSort;
  /** Fold each type's long tail (off while a filter narrows the rooms). */
  readonly fold: boolean;
  /** The workspace's folders: their projects come first. */
  readonly workspaceFolders?: readonly string[];
}

/** Label of the group of rooms whose exchanges recorded no project. */
export const NO_PROJECT = 'No project recorded';

/** Groups rooms (in the order listRooms sorted them) into projects, then types, each type's tail folded. */
export function roomTree(rooms: readonly RoomSummary[], options: RoomTreeOptions): RoomProject[] {
  const byProject = new Map<string | undefined, RoomSummary[]>();
  for (const r of rooms) byProject.set(r.project, [...(byProject.get(r.project) ?? []), r]);
  const labels = projectLabels([...byProject.keys()].filter((p): p is string => p !== undefined));
  const folders = options.workspaceFolders ?? [];
  const projects = [...byProject].map(([project, list]): RoomProject => {
    const lastAt = list.reduce<string | undefined>((a, r) => (r.lastAt !== undefined && (a === undefined || r.lastAt > a) ? r.lastAt : a), undefined);
    const types = ROOM_TYPES.map((type) => list.filter((r) => r.type === type))
      .filter((l) => l.length > 0)
      .map((l) => {
        const cut = options.fold && l.length > ROOMS_BEFORE_FOLD + 1 ? ROOMS_BEFORE_FOLD : l.length;
        return { type: l[0]!.type, first: l.slice(0, cut), more: l.slice(cut) };
      });
    return {
      ...(project !== undefined ? { project } : {}),
      label: project !== undefined ? labels.get(project)! : NO_PROJECT,
      inWorkspace: project !== undefined && insideAny(project, folders),
      rooms: list.length,
      ...(lastAt !== undefined ? { lastAt } : {}),
      types,
    };
  });
  const rank = options.sort === 'size' ? (a: RoomProject, b: RoomProject) => b.rooms - a.rooms : (a: RoomProject, b: RoomProject) => compareText(b.lastAt ?? '', a.lastAt ?? '');
  return projects.sort(
    (a, b) => Number(b.inWorkspace) - Number(a.inWorkspace) || Number(a.project === undefined) - Number(b.project === undefined) || rank(a, b) || compareText(a.label, b.label),
  );
}

/** Label of a project that is a home folder (sessions started from `~`), whose last folder is a user name, often redacted. */
export const HOME_FOLDER = 'Home folder';

/**
 * Each project's folder name, led by as many parent folders as it takes to tell it from the others; a home folder is
 * "Home folder" (with its path as recorded when there are several), not `Users/[USER]`.
 */
export function projectLabels(projects: readonly string[]): Map<string, string> {
  const parts = new Map(projects.map((p) => [p, p.split(/[\\/]+/).filter(Boolean)]));
  const homes = projects.filter((p) => isHomeFolder(parts.get(p)!));
  const labels = new Map<string, string>();
  for (const [p, segs] of parts) {
    let n = 1;
    const label = (k: number): string => segs.slice(-k).join('/') || p;
    while (n < segs.length && [...parts].some(([q, other]) => q !== p && other.slice(-n).join('/') === label(n))) n++;
    labels.set(p, !homes.includes(p) ? label(n) : homes.length === 1 ? HOME_FOLDER : `${HOME_FOLDER} (${p})`);
  }
  return labels;
}

/** `/Users/x`, `/home/x`, `C:\Users\x`, `/root`. */
function isHomeFolder(segs: readonly string[]): boolean {
  const rest = /^[a-z]:$/i.test(segs[0] ?? '') ? segs.slice(1) : segs;
  return (rest.length === 2 && /^(users|home)$/i.test(rest[0]!)) || (rest.length === 1 && rest[0] === 'root');
}
