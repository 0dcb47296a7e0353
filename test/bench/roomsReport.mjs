#!/usr/bin/env node
// The rooms a store shows, summarised for a reader to judge (issue 14): concept rooms in the tree, their
// size distribution, the share of exchanges in at least one shown room, and the largest rooms with labels.
// Reads `agent-recall rooms --json` and `stats --json` of the built CLI (npm run build first).
//   node test/bench/roomsReport.mjs --db STORE [--top 30]
import { execFileSync } from 'node:child_process';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { db: { type: 'string' }, top: { type: 'string' } } });
if (!values.db) throw new Error('usage: node test/bench/roomsReport.mjs --db STORE [--top 30]');
const cli = (...args) => execFileSync(process.execPath, ['dist/cli.js', ...args, '--db', values.db, '--json'], { encoding: 'utf8', maxBuffer: 1 << 28 });
const exchanges = JSON.parse(cli('stats')).exchanges;
const rooms = cli('rooms').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
const all = cli('rooms', '--all').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));

const share = (list) => +((100 * new Set(list.flatMap((r) => r.exchangeIds)).size) / Math.max(1, exchanges)).toFixed(1);
const concept = rooms.filter((r) => r.type === 'concept');
const sizes = concept.map((r) => r.exchanges).sort((a, b) => a - b);
const q = (p) => sizes[Math.min(sizes.length - 1, Math.floor(p * sizes.length))] ?? 0;
const buckets = { '3-4': 0, '5-9': 0, '10-19': 0, '20-49': 0, '50+': 0 };
for (const n of sizes) buckets[n < 5 ? '3-4' : n < 10 ? '5-9' : n < 20 ? '10-19' : n < 50 ? '20-49' : '50+']++;
const byType = (list) => Object.fromEntries(['concept', 'file', 'workflow'].map((t) => [t, list.filter((r) => r.type === t).length]));
console.log(JSON.stringify({
  exchanges,
  roomsShown: byType(rooms),
  roomsAll: byType(all),
  conceptSizes: { min: sizes[0] ?? 0, p50: q(0.5), p90: q(0.9), max: sizes[sizes.length - 1] ?? 0, buckets },
  exchangesInAShownRoomPct: share(rooms),
  exchangesInAShownConceptRoomPct: share(concept),
}, null, 1));
console.log(`\nlargest ${values.top ?? 30} concept rooms (exchanges / conversations):`);
for (const r of concept.slice(0, Number(values.top ?? 30))) console.log(`${String(r.exchanges).padStart(5)} ${String(r.conversations).padStart(4)}  ${r.label}`);
