#!/usr/bin/env node
// The rooms a store shows, summarised for a reader to judge (issues 14, 39): rooms in the tree per type and per
// project, concept room sizes, the share of exchanges in at least one shown room, how many rows the Rooms view
// shows as it opens (projects, then the first project's types with 8 rooms each and "N more…"), the largest rooms
// and the labels merged into them. With --before (a store of the same transcripts, and the CLI that wrote it),
// the same for it and which of its rooms one room now shows together: the pairs the normaliser merged.
// Reads `agent-recall rooms --json` and `stats --json` of the built CLI (npm run build first).
//   node test/bench/roomsReport.mjs --db STORE [--top 30] [--workspace DIR] [--before STORE --before-cli OTHER/dist/cli.js]
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';

// the normaliser as built by tsc (out/): which labels of the earlier store are one room's now
const { normaliseKey } = createRequire(import.meta.url)('../../out/src/core/roomKey.js');

const { values } = parseArgs({
  options: { db: { type: 'string' }, top: { type: 'string' }, before: { type: 'string' }, 'before-cli': { type: 'string' }, workspace: { type: 'string' } },
});
if (!values.db) throw new Error('usage: node test/bench/roomsReport.mjs --db STORE [--top 30] [--before STORE --before-cli CLI]');
const top = Number(values.top ?? 30);
/** Rooms shown per type before "N more…" (core/roomTree.ts ROOMS_BEFORE_FOLD); one more is shown, not folded. */
const FOLD = 8;

function read(db, cliPath = 'dist/cli.js') {
  const cli = (...args) => execFileSync(process.execPath, [cliPath, ...args, '--db', db, '--json'], { encoding: 'utf8', maxBuffer: 1 << 28 });
  const lines = (text) => text.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
  return { exchanges: JSON.parse(cli('stats')).exchanges, rooms: lines(cli('rooms')), all: lines(cli('rooms', '--all')) };
}

const TYPES = ['file', 'concept', 'workflow'];
const byType = (list) => Object.fromEntries(TYPES.map((t) => [t, list.filter((r) => r.type === t).length]));
const projectName = (p) => (p === undefined ? '(no project field: flat tree)' : p === null ? '(no project recorded)' : p.split(/[\\/]/).filter(Boolean).pop());

/**
 * Rows of the Rooms view as it opens: a CLI that names no project wrote a flat tree (types, every room); else
 * projects when more than one, the first open (the one holding --workspace, else the most recent), 8 rooms a type.
 */
function rowsAtOpen(rooms) {
  const types = (list) => TYPES.map((t) => list.filter((r) => r.type === t).length).filter((n) => n > 0);
  if (rooms.some((r) => r.project === undefined)) return types(rooms).reduce((rows, n) => rows + 1 + n, 0);
  const folded = (list) => types(list).reduce((rows, n) => rows + 1 + (n > FOLD + 1 ? FOLD + 1 : n), 0);
  const projects = [...new Set(rooms.map((r) => r.project))];
  if (projects.length <= 1) return folded(rooms);
  const last = (p) => rooms.filter((r) => r.project === p).map((r) => r.lastActivity ?? '').sort().pop();
  const open = projects.find((p) => values.workspace && p?.startsWith(values.workspace)) ?? projects.sort((a, b) => (last(b) > last(a) ? 1 : -1))[0];
  return projects.length + folded(rooms.filter((r) => r.project === open));
}

function summary({ exchanges, rooms, all }) {
  const share = (list) => +((100 * new Set(list.flatMap((r) => r.exchangeIds)).size) / Math.max(1, exchanges)).toFixed(1);
  const concept = rooms.filter((r) => r.type === 'concept');
  const sizes = concept.map((r) => r.exchanges).sort((a, b) => a - b);
  const q = (p) => sizes[Math.min(sizes.length - 1, Math.floor(p * sizes.length))] ?? 0;
  const buckets = { '3-4': 0, '5-9': 0, '10-19': 0, '20-49': 0, '50+': 0 };
  for (const n of sizes) buckets[n < 5 ? '3-4' : n < 10 ? '5-9' : n < 20 ? '10-19' : n < 50 ? '20-49' : '50+']++;
  const projects = {};
  for (const r of rooms) (projects[projectName(r.project)] ??= { file: 0, concept: 0, workflow: 0 })[r.type]++;
  return {
    exchanges,
    roomsShown: byType(rooms),
    roomsShownByProject: projects,
    roomsAll: byType(all),
    rowsWhenTheViewOpens: rowsAtOpen(rooms),
    conceptSizes: { min: sizes[0] ?? 0, p50: q(0.5), p90: q(0.9), max: sizes[sizes.length - 1] ?? 0, buckets },
    exchangesInAShownRoomPct: share(rooms),
    exchangesInAShownConceptRoomPct: share(concept),
  };
}

/**
 * Rooms the earlier store showed apart that one room shows now, by identity: an earlier room whose label the
 * normaliser keys as the room (or as a room of its family, roomFamilies.ts), in the same project (it shares
 * exchanges with the room). Rooms that are gone (no topic any more: `user_id`) and exchanges that moved are not merges.
 */
function merges(before, after) {
  const groups = [];
  for (const a of after.rooms) {
    const keys = new Set([a.key, normaliseKey(a.type, a.label), ...(a.aliases ?? []).map((l) => normaliseKey(a.type, l))]);
    const ids = new Set(a.exchangeIds);
    const was = before.rooms.filter((b) => b.type === a.type && keys.has(normaliseKey(b.type, b.label)) && b.exchangeIds.some((id) => ids.has(id)));
    if (was.length > 1) groups.push({ room: a, was });
  }
  return groups;
}

const after = read(values.db);
const report = { after: summary(after) };
const before = values.before ? read(values.before, values['before-cli'] ?? 'dist/cli.js') : undefined;
if (before) report.before = summary(before);
console.log(JSON.stringify(report, null, 1));

const line = (r) => `${String(r.exchanges).padStart(5)} ${String(r.conversations).padStart(4)}  ${r.type.padEnd(8)} ${r.label}  [${projectName(r.project)}]${r.aliases?.length ? `  also: ${r.aliases.join(', ')}` : ''}`;
console.log(`\nlargest ${top} rooms (exchanges / conversations):`);
for (const r of after.rooms.slice(0, top)) console.log(line(r));
const merged = after.rooms.filter((r) => r.aliases?.length);
console.log(`\n${merged.length} rooms show others of their project (room families):`);
for (const r of merged) console.log(line(r));
if (before) {
  const pairs = merges(before, after);
  const n = pairs.reduce((s, p) => s + p.was.length - 1, 0);
  console.log(`\n${n} merged pairs: rooms the tree showed apart before, shown as one now (the room, then the rooms it holds):`);
  for (const p of pairs) console.log(`${line(p.room)}\n        was: ${p.was.map((b) => `${b.label} (${b.exchanges})`).join(' | ')}`);
}
