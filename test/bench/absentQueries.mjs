#!/usr/bin/env node
// Queries holding a word that is in no exchange of the store (issue 42: "token refresh" over a store where
// "refresh" is nowhere): how many of the eval queries have one, and variants of each query that do, for
// confidenceFolds.mjs and `eval`. A variant keeps its query's targets and its id with a suffix (`d012~typo`), so
// folds keyed by the id before `~` keep a query and its variants together.
//   typo:  the query's most telling word (highest IDF, >= 4 letters) misspelt (two inner letters swapped, the
//          first swap whose stem is in no exchange): the user misremembers the word that would find it.
//   short: that word misspelt after the next two most telling words: a short query, one word nowhere (the
//          sample's "token refresh"); short4: after the next three.
// --short: short queries as people type them, no word misspelt (issue 42: the eval queries are 6-19 words long,
// a search box gets 2-4), each keeping its query's words as written, in the query's order:
//   idf2 .. idf5: the 2 .. 5 most telling of its words that some exchange holds (the fewest exchanges, then the longest);
//   first2 .. first5: its first 2 .. 5 words that are not stopwords (queryTerms' list), whatever they tell.
// Usage (after `tsc -p .`): node test/bench/absentQueries.mjs --db STORE --queries A.jsonl[,B.jsonl] [--short] [--out V.jsonl]
//   prints each query's words in no exchange; --out writes the variants (typo, short, short4; or with --short
//   idf2 .. idf5, first2 .. first5) as eval queries.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { db: { type: 'string' }, queries: { type: 'string' }, out: { type: 'string' }, short: { type: 'boolean', default: false } } });
if (!values.db || !values.queries) {
  console.error('usage: absentQueries.mjs --db STORE --queries A.jsonl[,B.jsonl] [--short] [--out V.jsonl]');
  process.exit(2);
}
const requireOut = createRequire(import.meta.url);
const { Memory } = requireOut('../../out/src/core/memory.js');
const { LexiconBm25 } = requireOut('../../out/src/core/search/lexiconBm25.js');
const { queryTerms } = requireOut('../../out/src/core/search/terms.js');

// The searcher counts every query word's exchanges (exact, the lexicon's): keep what it counted.
let counted = new Map();
let exchanges = 0;
const count = LexiconBm25.prototype.documentFrequencies;
LexiconBm25.prototype.documentFrequencies = async function (terms) {
  const r = await count.call(this, terms);
  for (const t of terms) counted.set(t, r.of.get(t));
  exchanges = r.exchanges;
  return r;
};
const memory = await Memory.open(resolve(values.db));
const searcher = memory.searcher({});
/** Each of `text`'s query words and the number of exchanges holding it (as the index stems it). */
async function frequencies(text) {
  counted = new Map();
  const { hits } = await searcher.search({ text, limit: 1, mode: 'verbatim/bm25' });
  // no hit: the words were counted by no one (the hits' explanation counts them), and none is in any exchange
  return hits.length > 0 ? counted : new Map(queryTerms(text).map((t) => [t, 0]));
}

const lines = values.queries.split(',').flatMap((f) => readFileSync(f, 'utf8').split('\n').filter((l) => l.trim()));
const variants = [];
let withAbsent = 0;
for (const line of lines) {
  const q = JSON.parse(line);
  const df = await frequencies(q.query);
  const absent = [...df].filter(([, n]) => n === 0).map(([t]) => t);
  if (absent.length > 0) withAbsent++;
  console.log(`${q.qid}\t${absent.length} of ${df.size} words in no exchange${absent.length ? `: ${absent.join(' ')}` : ''}`);
  if (values.short) {
    const terms = [...df.keys()]; // the query's order
    const held = [...df].filter(([, n]) => n > 0).sort((a, b) => a[1] - b[1] || b[0].length - a[0].length);
    const telling = (k) => new Set(held.slice(0, k).map(([t]) => t));
    for (const k of [2, 3, 4, 5]) {
      // only shorter than the query: a variant of all its words would be the query itself
      if (held.length > k) variants.push({ ...q, qid: `${q.qid}~idf${k}`, query: terms.filter((t) => telling(k).has(t)).join(' ') });
      if (terms.length > k) variants.push({ ...q, qid: `${q.qid}~first${k}`, query: terms.slice(0, k).join(' ') });
    }
    continue;
  }
  // the most telling words first: the fewest exchanges, then the longest
  const words = [...df].filter(([t, n]) => n > 0 && /^\p{L}{4,}$/u.test(t)).sort((a, b) => a[1] - b[1] || b[0].length - a[0].length);
  const typo = await misspelt(words[0]?.[0]);
  if (!typo) continue;
  const word = new RegExp(`(?<![\\p{L}\\p{N}])${words[0][0]}(?![\\p{L}\\p{N}])`, 'iu');
  variants.push({ ...q, qid: `${q.qid}~typo`, query: q.query.replace(word, typo) });
  if (words.length >= 3) variants.push({ ...q, qid: `${q.qid}~short`, query: `${words[1][0]} ${words[2][0]} ${typo}` });
  if (words.length >= 4) variants.push({ ...q, qid: `${q.qid}~short4`, query: `${words[1][0]} ${words[2][0]} ${words[3][0]} ${typo}` });
}
console.log(`${withAbsent} of ${lines.length} queries have a word in no exchange (${exchanges} exchanges); ${variants.length} variants`);
if (values.out) writeFileSync(values.out, variants.map((v) => JSON.stringify(v)).join('\n') + '\n');
await memory.close();

/** `word` with two inner letters swapped, the first such spelling in no exchange. */
async function misspelt(word) {
  if (!word) return undefined;
  for (let i = 1; i + 2 < word.length; i++) {
    if (word[i] === word[i + 1]) continue;
    const typo = word.slice(0, i) + word[i + 1] + word[i] + word.slice(i + 2);
    const [t] = queryTerms(typo);
    if (t && (await frequencies(typo)).get(t) === 0) return typo;
  }
  return undefined;
}
