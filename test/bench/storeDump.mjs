#!/usr/bin/env node
// Everything a store holds that a user or a search can see, as one canonical JSON file, and the difference
// between two such files: what proves a faster index wrote the same store (issue 41). Run `tsc -p .` first.
//
//   node test/bench/storeDump.mjs dump --db STORE --out FILE.json [--build DIR]
//   node test/bench/storeDump.mjs diff A.json B.json        (exit 1 when they differ)
//
// A dump holds, by exchange id (row numbers are the order of writing, not content): each exchange as `show
// --json` prints it (its listing, verbatim, token count, files touched, copies, the distilled object with its
// rooms and token count), its vector on every embedded layer, what the word index holds of it (its length and
// each term's count in the lexicon, its prompt in the full-text table), and the store's stats and rooms as
// `stats` and `rooms --all` count them. --build: the checkout whose code reads the store (default this one; a
// store of an older schema is read by the build that wrote it).
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(import.meta.url);
const [command, ...args] = process.argv.slice(2);

if (command === 'dump') {
  const db = args[args.indexOf('--db') + 1];
  const out = args[args.indexOf('--out') + 1];
  const build = args.includes('--build') ? resolve(args[args.indexOf('--build') + 1]) : ROOT;
  if (!args.includes('--db') || !args.includes('--out')) usage();
  writeFileSync(out, JSON.stringify(await dump(resolve(db), build)));
  console.error(`storeDump: wrote ${out}`);
} else if (command === 'diff') {
  if (args.length !== 2) usage();
  const [a, b] = args.map((f) => JSON.parse(readFileSync(f, 'utf8')));
  const differences = diff(a, b);
  for (const d of differences.slice(0, 40)) console.log(d);
  console.log(differences.length === 0 ? `same: ${Object.keys(a.exchanges).length} exchanges, ${a.vectors} vectors` : `${differences.length} differences`);
  process.exit(differences.length === 0 ? 0 : 1);
} else {
  usage();
}

function usage() {
  console.error('usage: storeDump.mjs dump --db STORE --out FILE.json | diff A.json B.json');
  process.exit(2);
}

async function dump(file, build) {
  const { Memory } = require(join(build, 'out/src/core/memory.js'));
  const memory = await Memory.openReadOnly(file);
  try {
    const exchanges = {};
    for (const summary of await memory.list()) {
      const ex = await memory.exchange(summary.exchangeId);
      const [distilled, copies] = await Promise.all([memory.distilled(ex.exchangeId), memory.savedCopies(ex)]);
      // the row's conversation key and place are content; what the listing repeats is not dumped twice
      exchanges[ex.exchangeId] = { ...ex, copies, distilled: distilled ?? null };
    }
    for (const [id, index] of Object.entries(await readIndex(file, build))) if (exchanges[id]) exchanges[id].index = index;
    const vectors = await readVectors(file);
    let count = 0;
    for (const [id, layers] of Object.entries(vectors)) {
      if (exchanges[id]) exchanges[id].vectors = layers;
      count += Object.keys(layers).length;
    }
    const stats = await memory.stats();
    const rooms = await memory.rooms('size');
    return { exchanges, vectors: count, stats, rooms: sortBy(rooms, (r) => `${r.type}\u0000${r.key}\u0000${r.project ?? ''}`) };
  } finally {
    await memory.close();
  }
}

/** What the word index holds of each exchange, by id: the lexicon's length and term counts, the FTS5 prompt's terms at their places. */
async function readIndex(file, build) {
  const { Db } = require(join(build, 'out/src/core/store/db.js'));
  const { forEachPair, readLexiconDocs } = require(join(build, 'out/src/core/store/lexicon.js'));
  const db = await Db.open(file, { readonly: true });
  try {
    const idOf = new Map((await db.all('SELECT n, id FROM exchanges')).map((r) => [r.n, r.id]));
    const docs = await readLexiconDocs(db);
    const terms = new Map();
    for (const r of await db.all('SELECT term, segment, postings FROM lexicon_postings ORDER BY term')) {
      forEachPair(r.postings, (n, count) => {
        if (docs.segmentOf[n] !== r.segment) return; // dead: its exchange was written again since
        const list = terms.get(n) ?? [];
        list.push(`${r.term}:${count}`);
        terms.set(n, list);
      });
    }
    // what the full-text index holds of each prompt, read from the index itself (the table may keep no text, schema v30):
    // each term at its places
    await db.exec("CREATE VIRTUAL TABLE temp.dump_vocab USING fts5vocab(main, 'exchanges_fts', 'instance')");
    const places = new Map();
    for (const r of await db.all('SELECT doc, term, offset FROM temp.dump_vocab ORDER BY doc, offset, term')) {
      if (!places.has(r.doc)) places.set(r.doc, []);
      places.get(r.doc).push(`${r.term}@${r.offset}`);
    }
    const prompts = new Map([...places].map(([n, list]) => [n, list.join(' ')]));
    for (const r of await db.all('SELECT id FROM exchanges_fts_docsize')) if (!prompts.has(r.id)) prompts.set(r.id, '');
    const out = {};
    for (const [n, id] of idOf) out[id] = { words: docs.lengthOf[n] ?? null, terms: (terms.get(n) ?? []).sort().join(' '), ftsPrompt: prompts.get(n) ?? null };
    return out;
  } finally {
    await db.close();
  }
}

/** Every stored vector by exchange id and layer, as hex of its bytes (exact, not rounded). */
async function readVectors(file) {
  const sqlite3 = require('@vscode/sqlite3');
  const { getLoadablePath } = require('sqlite-vec');
  const db = new sqlite3.Database(file, sqlite3.OPEN_READONLY);
  const all = (sql, params = []) => new Promise((ok, fail) => db.all(sql, params, (err, rows) => (err ? fail(err) : ok(rows))));
  await new Promise((ok, fail) => db.loadExtension(getLoadablePath(), (err) => (err ? fail(err) : ok())));
  const out = {};
  try {
    const tables = new Set((await all("SELECT name FROM sqlite_master WHERE name LIKE 'vec_%' AND sql LIKE 'CREATE VIRTUAL TABLE%'")).map((r) => r.name));
    for (const row of await all("SELECT DISTINCT layer FROM vector_rows WHERE layer <> 'verbatim'")) {
      const table = { core: 'vec_core', 'core+files': 'vec_core_files', 'core+rooms': 'vec_core_rooms', 'all-facets': 'vec_all_facets' }[row.layer];
      if (!tables.has(table)) continue;
      for (const v of await all(`SELECT e.id, t.embedding FROM ${table} t JOIN exchanges e ON e.n = t.rowid`)) {
        (out[v.id] ??= {})[row.layer] = Buffer.from(v.embedding).toString('hex');
      }
    }
  } finally {
    await new Promise((ok) => db.close(ok));
  }
  return out;
}

function sortBy(xs, key) {
  return [...xs].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

/** Paths where two dumps differ, each with both values cut short. */
function diff(a, b, at = '$', out = []) {
  if (JSON.stringify(a) === JSON.stringify(b)) return out;
  if (a && b && typeof a === 'object' && typeof b === 'object' && Array.isArray(a) === Array.isArray(b)) {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) diff(a[k], b[k], `${at}.${k}`, out);
  } else {
    out.push(`${at}: ${JSON.stringify(a)?.slice(0, 200)} != ${JSON.stringify(b)?.slice(0, 200)}`);
  }
  return out;
}
