#!/usr/bin/env node
// A large agent history for indexing at scale (issue 41): the corpus's transcripts written again and again into a
// temporary folder, each copy a different history to the indexer. Run `tsc -p .` first (the transcripts are the
// files discovery finds in the corpus, out/src/core/sources/discover.js). Never commit what it writes.
//
//   node test/bench/growHistory.mjs CORPUS_DIR [--bytes 1e9] [--out DIR] [--seed 1]
//
// Prints the folder (a new temporary one unless --out) and what it holds as one JSON line. Copy k of a transcript:
//   - lives under DIR/r<k>/ at the corpus's relative path, so discovery reads it as the same agent's;
//   - has fresh ids: every UUID and long hex id (in the records and in its file name) replaced by one made from it
//     and k, the same way everywhere, so sessions stay whole and no exchange id repeats across copies;
//   - has varied words: in each text of prose (a JSON string with spaces; a markdown line that is not a heading
//     or a marker), 8 % of the words replaced by corpus words, at least one, so no prompt or answer repeats and
//     near-copy detection (search/copies.ts: same prompt, 90 % of lines shared) does not fold the copies;
//   - has moved dates: every date and time in it (ISO and file-name forms, epoch milliseconds, a Codex
//     sessions/YYYY/MM/DD folder) k days earlier, so the copies are a history of different days.
// Structure is kept: JSON keys and short values (types, roles, paths) are not touched; JSONL stays one record a
// line; a pretty-printed JSON document is written pretty-printed.
import { mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { hash, random } from './lib.mjs';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { bytes: { type: 'string', default: '1e9' }, out: { type: 'string' }, seed: { type: 'string', default: '1' } },
});
const corpus = positionals[0] ? resolve(positionals[0]) : undefined;
if (!corpus) {
  console.error('usage: growHistory.mjs CORPUS_DIR [--bytes 1e9] [--out DIR] [--seed 1]');
  process.exit(2);
}
const target = Number(values.bytes);
const seed = Number(values.seed);
const out = values.out ? resolve(values.out) : mkdtempSync(join(tmpdir(), 'agent-recall-history-'));

const { discoverSources } = createRequire(import.meta.url)(join(ROOT, 'out/src/core/sources/discover.js'));
const sources = await discoverSources({ workspaceRoots: [], claudeRoots: [], codexRoots: [], extraRoots: [corpus], includeSubagents: true });
const files = sources.map((s) => ({ path: s.path, format: s.adapter.lineFormat, size: statSync(s.path).size }));
const corpusBytes = files.reduce((a, f) => a + f.size, 0);
const copies = Math.max(1, Math.ceil(target / corpusBytes));

const hex = (n, len) => n.toString(16).padStart(8, '0').repeat(Math.ceil(len / 8)).slice(0, len);
const UUID_RE = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const HEX_ID_RE = /\b[0-9a-f]{16,}\b/gi;
/** An id of copy k: the same digits for the same id everywhere in the copy, a hex digit for a hex digit. */
function freshIds(text, k) {
  const one = (id) => {
    if (/^\d+$/.test(id)) return id; // a number (a time, a count), not an id: a letter in it would break a JSON document
    let h = hash(`${seed}:${k}:${id.toLowerCase()}`);
    return id.replace(/[0-9a-f]/gi, () => ((h = Math.imul(h ^ (h >>> 13), 0x5bd1e995) >>> 0), (h & 15).toString(16)));
  };
  return text.replace(UUID_RE, one).replace(HEX_ID_RE, one);
}

// Replacement words, drawn from the corpus's own prose as often as they occur there.
const vocabulary = [];
for (const f of files.slice(0, 200)) vocabulary.push(...(readFileSync(f.path, 'utf8').match(/\b[a-z]{3,12}\b/g) ?? []).slice(0, 2000));
if (vocabulary.length === 0) vocabulary.push('alpha', 'beta', 'gamma');

const NOISE = 0.08;
const WORD_RE = /\b[A-Za-z]{2,}\b/g;
/** `text` with NOISE of its words replaced by corpus words, at least one. */
function varied(text, rand) {
  const words = [...text.matchAll(WORD_RE)];
  if (words.length === 0) return text;
  const forced = Math.floor(rand() * words.length);
  let i = -1;
  return text.replace(WORD_RE, (w) => {
    i++;
    return i === forced || rand() < NOISE ? vocabulary[Math.floor(rand() * vocabulary.length)] : w;
  });
}

const DAY_MS = 86_400_000;
const DATE_TIME_RE = /\b(\d{4})-(\d{2})-(\d{2})([T _])(\d{2})([:-])(\d{2})/g;
const DATE_DIR_RE = /([/\\])(20\d{2})\1(\d{2})\1(\d{2})(?=[/\\])/g;
const pad = (n) => String(n).padStart(2, '0');
/** A date `days` earlier, in the form it was written in. */
function movedDate(date, days) {
  const d = new Date(date.getTime() - days * DAY_MS);
  return { y: d.getUTCFullYear(), m: pad(d.getUTCMonth() + 1), d: pad(d.getUTCDate()) };
}
/** `text` with its dates and times `days` earlier (the time of day kept). */
function movedDates(text, days) {
  return text
    .replace(DATE_TIME_RE, (all, y, m, d, sep, hh, tsep, mm) => {
      const at = new Date(Date.UTC(+y, +m - 1, +d));
      if (Number.isNaN(at.getTime())) return all;
      const to = movedDate(at, days);
      return `${to.y}-${to.m}-${to.d}${sep}${hh}${tsep}${mm}`;
    })
    .replace(DATE_DIR_RE, (all, sep, y, m, d) => {
      const to = movedDate(new Date(Date.UTC(+y, +m - 1, +d)), days);
      return `${sep}${to.y}${sep}${to.m}${sep}${to.d}`;
    });
}
/** Epoch milliseconds (2017 to 2036) `days` earlier; any other number kept. */
const movedEpoch = (n, days) => (Number.isInteger(n) && n > 1.5e12 && n < 2.1e12 ? n - days * DAY_MS : n);

/** Prose strings of a JSON value varied; keys and short values kept; epoch milliseconds moved `days` earlier. */
function variedValue(value, rand, days) {
  if (typeof value === 'number') return movedEpoch(value, days);
  if (typeof value === 'string') return value.length >= 12 && value.includes(' ') ? varied(value, rand) : value;
  if (Array.isArray(value)) return value.map((v) => variedValue(v, rand, days));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, v]) => [key, variedValue(v, rand, days)]));
  return value;
}

/** A markdown line of prose (not a heading, a role marker, a rule, a quote of tool output, a comment). */
const MARKER_RE = /^(?:#|_\*\*|\*\*|---|>|<!--|```)/;

function copyOf(text, format, k, rand) {
  if (format === 'markdown') return text.split('\n').map((line) => (MARKER_RE.test(line.trimStart()) || line.trim() === '' ? line : varied(line, rand))).join('\n');
  if (format === 'json') {
    try {
      const doc = JSON.parse(text);
      return JSON.stringify(variedValue(doc, rand, k), null, text.includes('\n') ? 2 : undefined);
    } catch {
      return text; // a document that does not parse is copied as it is (the indexer says what it is)
    }
  }
  return text
    .split('\n')
    .map((line) => {
      if (line.trim() === '') return line;
      try {
        return JSON.stringify(variedValue(JSON.parse(line), rand, k));
      } catch {
        return line;
      }
    })
    .join('\n');
}

let written = 0;
let count = 0;
for (let k = 1; k <= copies && written < target; k++) {
  for (const f of files) {
    if (written >= target) break;
    const rand = random(hash(`${seed}:${k}:${f.path}`));
    const text = movedDates(freshIds(copyOf(readFileSync(f.path, 'utf8'), f.format, k, rand), k), k);
    const to = join(out, `r${k}`, movedDates(freshIds(relative(corpus, f.path), k), k));
    mkdirSync(dirname(to), { recursive: true });
    writeFileSync(to, text);
    written += Buffer.byteLength(text);
    count++;
  }
  process.stderr.write(`copy ${k}/${copies}: ${(written / 1e6).toFixed(0)} MB\n`);
}
console.log(JSON.stringify({ dir: out, files: count, bytes: written, copies }));
