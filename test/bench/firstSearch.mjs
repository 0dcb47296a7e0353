#!/usr/bin/env node
// When a store being indexed first answers a search: polls it every 100 ms from its own process, read-only, as the
// MCP server or a second window reads a store another process writes, with a search by words (verbatim/bm25, what
// is searchable as soon as an exchange is stored). Prints {"firstSearchMs": N} counted from --since (epoch ms, the
// index run's start), or {"firstSearchMs": null} when --timeout passes first. Used by indexStages.mjs:
//   node test/bench/firstSearch.mjs --build DIR --db FILE --since EPOCH_MS [--query WORDS] [--timeout 600]
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: { build: { type: 'string' }, db: { type: 'string' }, since: { type: 'string' }, query: { type: 'string' }, timeout: { type: 'string' } },
});
const { Memory } = createRequire(import.meta.url)(join(resolve(values.build), 'out/src/core/memory.js'));
const since = Number(values.since);
const query = values.query ?? 'file code error function test';
const deadline = Date.now() + Number(values.timeout ?? 600) * 1000;

for (;;) {
  if (Date.now() > deadline) {
    console.log(JSON.stringify({ firstSearchMs: null }));
    process.exit(0);
  }
  if (existsSync(values.db)) {
    // a store being created or migrated is not readable yet: tried again at the next tick
    const memory = await Memory.openReadOnly(values.db).catch(() => undefined);
    const hits = memory ? await memory.search({ text: query, mode: 'verbatim/bm25', limit: 1 }).then((r) => r.hits.length, () => 0) : 0;
    await memory?.close();
    if (hits > 0) {
      console.log(JSON.stringify({ firstSearchMs: Date.now() - since }));
      process.exit(0);
    }
  }
  await new Promise((r) => setTimeout(r, 100));
}
