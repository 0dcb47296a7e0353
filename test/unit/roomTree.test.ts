import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RoomType } from '../../src/core/model';
import { NO_PROJECT, projectLabels, ROOMS_BEFORE_FOLD, roomTree } from '../../src/core/roomTree';
import type { RoomSummary } from '../../src/core/store/browse';

// The Rooms view's model (issue 39): 165 concept rooms of five repositories in one flat list were no explorer.

function room(label: string, type: RoomType, project: string | undefined, count: number, day: number): RoomSummary {
  return {
    id: `${project}:${type}:${label}`, type, key: label.toLowerCase(), label, count, conversations: 2, aliases: [],
    lastAt: `2026-10-${String(day).padStart(2, '0')}T10:00:00Z`, ...(project !== undefined ? { project } : {}),
  };
}

test("rooms are grouped by project, the workspace's first, then by type; a type's long tail is folded", () => {
  const concepts = Array.from({ length: 20 }, (_, i) => room(`Topic ${i}`, 'concept', '/w/gryag', 20 - i, 28 - i));
  const rooms = [
    ...concepts,
    room('README.md', 'file', '/w/gryag', 5, 3),
    room('README.md', 'file', '/corpus/polychrome', 4, 20),
    room('Tests', 'workflow', '/corpus/polychrome', 9, 21),
    room('Debugging', 'workflow', undefined, 7, 25),
  ];
  const tree = roomTree(rooms, { sort: 'recency', fold: true, workspaceFolders: ['/w'] });
  assert.deepEqual(tree.map((p) => [p.label, p.rooms, p.inWorkspace]), [['gryag', 21, true], ['polychrome', 2, false], [NO_PROJECT, 1, false]]);
  const [gryag, polychrome] = tree;
  assert.deepEqual(gryag!.types.map((t) => [t.type, t.first.length, t.more.length]), [['file', 1, 0], ['concept', ROOMS_BEFORE_FOLD, 20 - ROOMS_BEFORE_FOLD]]);
  // the order listRooms gave is kept: the first rooms shown, the rest folded in the same order
  assert.deepEqual(gryag!.types[1]!.first.map((r) => r.label), concepts.slice(0, ROOMS_BEFORE_FOLD).map((r) => r.label));
  assert.deepEqual(polychrome!.types.map((t) => t.first.map((r) => r.label)), [['README.md'], ['Tests']]);

  // by size, the project with more rooms first (the workspace's still leads); a filter shows every match unfolded
  assert.deepEqual(roomTree(rooms, { sort: 'size', fold: true }).map((p) => p.label), ['gryag', 'polychrome', NO_PROJECT]);
  assert.equal(roomTree(rooms, { sort: 'recency', fold: false })[0]!.types[1]!.more.length, 0);
  // one more room than the fold would show is shown, not folded alone under "1 more…"
  const nine = roomTree(concepts.slice(0, ROOMS_BEFORE_FOLD + 1), { sort: 'recency', fold: true });
  assert.deepEqual(nine[0]!.types.map((t) => [t.first.length, t.more.length]), [[ROOMS_BEFORE_FOLD + 1, 0]]);
});

test('a project is named by its folder, with as many parents as tell it from the others', () => {
  const labels = projectLabels(['/Users/k/Dev/ocodex/codex-rs', '/Users/k/Dev/ocodex-labs/ocodex/codex-rs', '/Users/k/Dev/ocodex', 'C:\\Users\\Mischa']);
  assert.deepEqual([...labels.values()], ['Dev/ocodex/codex-rs', 'ocodex-labs/ocodex/codex-rs', 'ocodex', 'Home folder']);
});

test('a home folder is labelled "Home folder", with its path when there are several (not `Users/[USER]`)', () => {
  assert.deepEqual([...projectLabels(['/Users/[USER]', '/Users/[USER]/Dev/app']).values()], ['Home folder', 'app']);
  assert.deepEqual([...projectLabels(['/Users/[USER]', '/home/[USER]', '/root/src']).values()], [
    'Home folder (/Users/[USER])',
    'Home folder (/home/[USER])',
    'src',
  ]);
  // A Windows home reads as Windows writes it, not with its drive cut or its separators turned.
  assert.deepEqual([...projectLabels(['C:\\Users\\ana', '/home/ana']).values()], ['Home folder (C:\\Users\\ana)', 'Home folder (/home/ana)']);
  assert.deepEqual([...projectLabels(['/root', 'C:\\Windows\\System32']).values()], ['Home folder', 'System32']);
});
