#!/usr/bin/env node
// Grows a real store to a target size for latency measurements at scale: copies it, then adds replicas of its
// conversations, exchanges (with their index text, computed as the store does), files, distilled objects and their facets under new ids
// until it holds --exchanges rows. Each replica is lightly perturbed, deterministically (--seed): exact copies
// would multiply every term's document frequency and tie every hit with its copies.
//   - per replica, the same way in all its text (prompt, verbatim, distilled core and context, file paths):
//     a share of identifiers renamed slightly, of numbers changed in their last digit, dates and timestamps
//     moved by the replica's number of days;
//   - per text, at random: a few words replaced by words drawn from the corpus (by frequency), dropped or doubled.
// Replicas keep their source file and lines, so `eval` still judges them (a replica of the right exchange is
// right). Token counts and content hashes stay the originals' (search reads neither). Each replica's text is checked for
// secrets and stamped (distilled.clean) by the index run's own redaction stage, as a real index stamps what it distils.
// Each replica's distilled-layer vectors are copied from its original (keyed by the replica's row; the original's
// vector, not one of the perturbed text: a store of the same size as an embedded one, not better recall); verbatim
// chunks' vectors are dropped (not part of the default mode). `--vectors none` drops every vector, as before.
// Usage (after `tsc -p .`): node test/bench/replicateStore.mjs --from SMALL.sqlite --to BIG.sqlite [--exchanges 50000] [--seed 1]
import { copyFileSync, rmSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { hash, random } from './lib.mjs';
import sqlite3 from '@vscode/sqlite3';
import { createRequire } from 'node:module';

const requireOut = createRequire(import.meta.url);
const { loadVectorExtension } = requireOut('../../out/src/core/store/vectors.js');
const { VECTOR_TABLES } = requireOut('../../out/src/core/store/vectorStore.js');
const { indexText } = requireOut('../../out/src/core/indexText.js');
const { addToLexicon } = requireOut('../../out/src/core/store/lexicon.js');
const { Db } = requireOut('../../out/src/core/store/db.js');
const { isAsked } = requireOut('../../out/src/core/store/rows.js');
const { checkRedaction } = requireOut('../../out/src/core/redactionCheck.js');

const { values } = parseArgs({
  options: { from: { type: 'string' }, to: { type: 'string' }, exchanges: { type: 'string' }, seed: { type: 'string' }, vectors: { type: 'string' } },
});
const copyVectors = (values.vectors ?? 'copy') !== 'none';
if (!values.from || !values.to) throw new Error('usage: --from SMALL.sqlite --to BIG.sqlite [--exchanges 50000] [--seed 1]');
const target = Number(values.exchanges ?? 50_000);
const seed = Number(values.seed ?? 1);
for (const suffix of ['', '-wal', '-shm']) rmSync(values.to + suffix, { force: true });
copyFileSync(values.from, values.to);

/** Share of word tokens changed at random in each text: replaced, dropped or doubled (60 / 20 / 20). */
const NOISE = 0.03;
/** Share of identifier-like words (camelCase, snake_case, letters with digits) a replica renames. */
const RENAME = 0.2;
/** Share of numbers a replica changes. */
const RENUMBER = 0.2;
const DATE_RE = /\d{4}-\d{2}-\d{2}/g;
const WORD_RE = /(\d{4}-\d{2}-\d{2})|[\p{L}\p{N}_]+/gu;

const isIdentifier = (w) => /[a-z][A-Z]|_/.test(w) || (/\d/.test(w) && /\p{L}/u.test(w));

/**
 * A text split once, reused by every replica: where its words are (dates count as one word) and, by distinct
 * form, where its dates, numbers and identifiers are. A replica then touches only the words it changes.
 */
function analyse(text) {
  const spans = [];
  const forms = new Map();
  const dates = new Set();
  for (const m of text.matchAll(WORD_RE)) {
    const w = m[0];
    const i = spans.length / 2;
    spans.push(m.index, m.index + w.length);
    if (m[1] !== undefined) dates.add(i);
    if (m[1] !== undefined || /^\d+$/.test(w) || isIdentifier(w)) {
      if (!forms.has(w)) forms.set(w, []);
      forms.get(w).push(i);
    }
  }
  return { text, spans: Int32Array.from(spans), forms: [...forms], dates };
}

/**
 * The perturbation of replica `k`. Its choices for a word are a function of (seed, k, word), cached, so
 * the replica renames a word the same way wherever it occurs; `noisy` adds the random edits, seeded per text.
 */
function replica(k, pool) {
  const changed = new Map();
  const form = (w) => {
    let out = changed.get(w);
    if (out !== undefined) return out;
    const h = hash(`${seed}:${k}:${w}`);
    const chance = (h % 10_000) / 10_000;
    out = w;
    const date = /^(\d{4})-(\d{2})-(\d{2})$/.exec(w);
    if (date) {
      // replica k lives k days after the original; anything that is not a calendar date stays
      const [y, m, d] = date.slice(1).map(Number);
      if (m >= 1 && m <= 12 && d >= 1 && d <= 31) out = new Date(Date.UTC(y, m - 1, d + k)).toISOString().slice(0, 10);
    } else if (/^\d+$/.test(w)) {
      if (chance < RENUMBER) out = w.slice(0, -1) + ((Number(w.at(-1)) + 1 + (h % 9)) % 10);
    } else if (chance < RENAME && isIdentifier(w)) {
      const at = 1 + (h % Math.max(1, w.length - 2));
      // a digit more, or one letter doubled
      out = (h >>> 8) % 2 === 0 || w.length < 4 || /[\uD800-\uDFFF]/.test(w) ? `${w}${2 + (h % 8)}` : w.slice(0, at) + w[at] + w.slice(at);
    }
    changed.set(w, out);
    return out;
  };
  return {
    /** Timestamps moved by the replica's days. */
    dated: (text) => (text == null ? text : text.replace(DATE_RE, form)),
    /** The replica-wide renames and shifts only: for file paths, which must agree everywhere. */
    consistent: (text) => (text == null ? text : text.replace(WORD_RE, form)),
    /** Renames, shifts and random edits of an analysed text, the random ones seeded by `key`. */
    noisy(a, key) {
      const edits = new Map();
      for (const [w, at] of a.forms) {
        const out = form(w);
        if (out !== w) for (const i of at) edits.set(i, out);
      }
      // about NOISE of the words (dates excepted) change at random: the gaps between them are geometric
      const rand = random(hash(`${seed}:${k}:${key}`));
      const gap = () => Math.floor(Math.log(1 - rand()) / Math.log(1 - NOISE));
      for (let i = gap(); i < a.spans.length / 2; i += 1 + gap()) {
        if (a.dates.has(i)) continue;
        const w = edits.get(i) ?? a.text.slice(a.spans[2 * i], a.spans[2 * i + 1]);
        const r = rand();
        edits.set(i, r < 0.6 ? pool[Math.floor(rand() * pool.length)] : r < 0.8 ? '' : `${w} ${w}`);
      }
      if (edits.size === 0) return a.text;
      let out = '';
      let from = 0;
      for (const i of [...edits.keys()].sort((x, y) => x - y)) {
        out += a.text.slice(from, a.spans[2 * i]) + edits.get(i);
        from = a.spans[2 * i + 1];
      }
      return out + a.text.slice(from);
    },
  };
}

const raw = new sqlite3.Database(values.to);
const run = (sql, p = []) => new Promise((res, rej) => raw.run(sql, p, function (e) { if (e) rej(e); else res(this.changes); }));
const get = (sql, p = []) => new Promise((res, rej) => raw.get(sql, p, (e, r) => (e ? rej(e) : res(r))));
const all = (sql, p = []) => new Promise((res, rej) => raw.all(sql, p, (e, r) => (e ? rej(e) : res(r))));

const conversations = await all('SELECT * FROM conversations');
const exchanges = (await all('SELECT * FROM exchanges ORDER BY n')).map((e) => ({ ...e, v: analyse(e.verbatim), p: analyse(e.prompt) }));
const base = exchanges.length;
const files = await all('SELECT e.id, f.path, f.how, f.lines FROM files_touched f JOIN exchanges e ON e.n = f.exchange_n');
const rooms = await all('SELECT e.id, r.room_id, r.relevance FROM exchange_rooms r JOIN exchanges e ON e.n = r.exchange_n');
const distilled = (
  await all(
    `SELECT e.id, d.*, f.files, f.rooms FROM distilled d JOIN exchanges e ON e.n = d.exchange_n
     LEFT JOIN distilled_facets f ON f.exchange_n = d.exchange_n`,
  )
).map((d) => ({ ...d, c: analyse(d.core), x: analyse(d.context) }));
// Replacement words are drawn from the corpus itself, each as often as it occurs there.
const pool = exchanges.flatMap((e) => e.verbatim.match(/[\p{L}_]{2,}/gu) ?? []);

const copies = Math.ceil(target / base) - 1;
// the lexicon (BM25's index) is written through the store's own functions, on a connection of their kind
const lexicon = await Db.open(values.to);
// the distilled layers' vectors by layer and original row (verbatim chunks' vectors are not copied)
const vectors = new Map();
if (copyVectors) {
  await loadVectorExtension(lexicon);
  await run("DELETE FROM vector_rows WHERE layer = 'verbatim'").catch(() => undefined);
  await run('DELETE FROM verbatim_chunks').catch(() => undefined);
  if (await get("SELECT 1 AS one FROM sqlite_master WHERE name = 'vec_verbatim'")) await lexicon.run('DELETE FROM vec_verbatim');
  for (const { layer } of await all('SELECT DISTINCT layer FROM vector_rows')) {
    const rows = await lexicon.all(`SELECT rowid, embedding FROM ${VECTOR_TABLES[layer]}`);
    vectors.set(layer, new Map(rows.map((r) => [r.rowid, r.embedding])));
  }
} else {
  for (const table of ['embedding_model', 'vector_rows', 'verbatim_chunks']) await run(`DELETE FROM ${table}`).catch(() => undefined);
}
let copiedVectors = 0;
let changed = 0;
let made = 0;
for (let k = 1; k <= copies; k++) {
  const want = Math.min(base, target - base * k);
  if (want <= 0) break;
  const tag = `~r${k}`;
  const p = replica(k, pool);
  await run('BEGIN');
  const conv = raw.prepare(`INSERT INTO conversations(id, source_id, agent, session_id, project, git_branch, title, started_at,
    is_subagent, parent_session_id, model, line) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  await Promise.all(
    conversations.map((c) => new Promise((res, rej) => conv.run([
      c.id + tag, c.source_id, c.agent, c.session_id + tag, c.project, c.git_branch, c.title, p.dated(c.started_at),
      c.is_subagent, c.parent_session_id, c.model, c.line,
    ], (e) => (e ? rej(e) : res())))),
  );
  conv.finalize();
  const ins = raw.prepare(`INSERT INTO exchanges(id, conversation_id, source_id, part, ply_start, ply_end, line_start, line_end,
    byte_start, started_at, ended_at, prompt, verbatim, verbatim_tokens, asked) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const fts = raw.prepare('INSERT INTO exchanges_fts(rowid, prompt) VALUES (?, ?)');
  // the index text where it is not the prompt, for the row's delete trigger (src/core/store/contentlessFts.ts)
  const ftsText = raw.prepare('INSERT INTO exchanges_fts_text(n, prompt) VALUES (?, ?)');
  const docs = [];
  /** [original row, replica row] */
  const rowOf = [];
  await Promise.all(
    exchanges.slice(0, want).map((e) => {
      const verbatim = p.noisy(e.v, `${e.id}:v`);
      const prompt = p.noisy(e.p, `${e.id}:p`);
      if (verbatim !== e.verbatim) changed++;
      made++;
      return new Promise((res, rej) => ins.run([
        e.id + tag, e.conversation_id + tag, e.source_id, e.part, e.ply_start, e.ply_end, e.line_start, e.line_end, e.byte_start,
        p.dated(e.started_at), p.dated(e.ended_at), prompt, verbatim, e.verbatim_tokens, isAsked(prompt) ? 1 : 0,
      ], function (err) {
        if (err) return rej(err);
        rowOf.push([e.n, this.lastID]);
        // the index text, as the store writes it (src/core/indexText.ts, compiled by tsc into out/): the prompt's
        // full-text row now, the lexicon's document after the commit (one segment per replica, as an index run writes)
        const text = indexText(prompt, verbatim);
        docs.push({ n: this.lastID, doc: text.doc });
        // `this` is the statement, its lastID the next row's by the time the full-text row is written
        const n = this.lastID;
        fts.run([n, text.prompt], (err2) => {
          if (err2) return rej(err2);
          if (text.prompt === prompt) return res();
          ftsText.run([n, text.prompt], (err3) => (err3 ? rej(err3) : res()));
        });
      }));
    }),
  );
  ins.finalize();
  fts.finalize();
  ftsText.finalize();
  // Files, distilled rows and facets join their replica exchange by id (the last replica may be partial).
  const at = (i) => `j.value ->> ${i}`;
  await run(
    `INSERT OR IGNORE INTO files_touched(exchange_n, path, how, lines)
     SELECT c.n, ${at(1)}, ${at(2)}, ${at(3)} FROM json_each(?) j JOIN exchanges c ON c.id = ${at(0)}`,
    [JSON.stringify(files.map((f) => [f.id + tag, p.consistent(f.path), f.how, f.lines]))],
  );
  const objects = distilled.map((d) => ({ ...d, core: p.noisy(d.c, `${d.id}:c`), context: p.noisy(d.x, `${d.id}:x`) }));
  await run(
    `INSERT INTO distilled(exchange_n, core, context, distiller, model, prompt_version, content_hash, tokens, created_at, terms)
     SELECT c.n, ${[1, 2, 3, 4, 5, 6, 7, 8, 9].map(at).join(', ')} FROM json_each(?) j JOIN exchanges c ON c.id = ${at(0)}`,
    [JSON.stringify(objects.map((d) => [d.id + tag, d.core, d.context, d.distiller, d.model, d.prompt_version, d.content_hash, d.tokens, d.created_at, d.terms ?? '']))],
  );
  await run(
    `INSERT INTO exchange_rooms(exchange_n, room_id, relevance)
     SELECT c.n, ${at(1)}, ${at(2)} FROM json_each(?) j JOIN exchanges c ON c.id = ${at(0)}`,
    [JSON.stringify(rooms.map((r) => [r.id + tag, r.room_id, r.relevance]))],
  );
  // the facets as indexed, then the index from the rows, as the store writes them (distilledStore.ts)
  await run(
    `INSERT INTO distilled_facets(exchange_n, files, rooms)
     SELECT c.n, ${[1, 2].map(at).join(', ')} FROM json_each(?) j JOIN exchanges c ON c.id = ${at(0)}`,
    [JSON.stringify(objects.filter((d) => d.files !== null).map((d) => [d.id + tag, p.consistent(d.files), d.rooms]))],
  );
  await run(
    `INSERT INTO distilled_fts(rowid, core, context, files, rooms, terms)
     SELECT d.exchange_n, d.core, d.context, x.files, x.rooms, d.terms FROM distilled d JOIN distilled_facets x ON x.exchange_n = d.exchange_n
     WHERE d.exchange_n > ? ORDER BY d.exchange_n`,
    [rowOf.reduce((m, [, to]) => Math.min(m, to), Infinity) - 1],
  );
  await run('COMMIT');
  await lexicon.transaction(() => addToLexicon(lexicon, docs));
  // vectors after their rows, in row order, one transaction per replica (as the embed stage writes them)
  await lexicon.transaction(async () => {
    rowOf.sort((a, b) => a[1] - b[1]);
    for (const [layer, byRow] of vectors) {
      for (const [from, to] of rowOf) {
        const blob = byRow.get(from);
        if (blob === undefined) continue;
        await lexicon.run(`INSERT INTO ${VECTOR_TABLES[layer]}(rowid, embedding) VALUES (?, ?)`, [to, blob]);
        await lexicon.run('INSERT INTO vector_rows(layer, exchange_n) VALUES (?, ?)', [layer, to]);
        copiedVectors++;
      }
    }
  });
  process.stderr.write(`copy ${k}/${copies}\n`);
}
const stamped = await checkRedaction(lexicon);
console.log(
  `${(await get('SELECT count(*) AS c FROM exchanges')).c} exchanges in ${values.to}; ${changed} of ${made} replica verbatims differ from their original; ` +
    `${stamped} redaction stamps written; ${copiedVectors} vectors copied`,
);
await new Promise((res) => raw.close(res));
await lexicon.close();
