#!/usr/bin/env node
// The floor an index run is measured against (issue 41): one plain pass over the same transcripts, on one thread,
// that reads every file and JSON-parses every record (a JSONL file line by line, a JSON document whole; markdown
// is read and split into lines), and nothing else. The files are those discovery finds (the build's
// out/src/core/sources/discover.js), found before the clock starts. Prints one JSON line.
//   node test/bench/readFloor.mjs --build DIR --corpus DIR
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { build: { type: 'string' }, corpus: { type: 'string' } } });
const { discoverSources } = createRequire(import.meta.url)(join(resolve(values.build), 'out/src/core/sources/discover.js'));
const sources = await discoverSources({ workspaceRoots: [], claudeRoots: [], codexRoots: [], extraRoots: [resolve(values.corpus)], includeSubagents: true });
const started = performance.now();
const cpu = process.cpuUsage();
let bytes = 0;
let records = 0;
for (const s of sources) {
  const text = await readFile(s.path, 'utf8');
  bytes += Buffer.byteLength(text);
  if (s.adapter.lineFormat === 'json') {
    try {
      JSON.parse(text);
    } catch {
      // a document being written: counted as read
    }
    records++;
  } else if (s.adapter.lineFormat === 'jsonl') {
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      try {
        JSON.parse(line);
        records++;
      } catch {
        // a bad line: read, not a record
      }
    }
  } else {
    records += text.split('\n').length;
  }
}
const used = process.cpuUsage(cpu);
console.log(JSON.stringify({ files: sources.length, bytes, records, ms: Math.round(performance.now() - started), cpuMs: Math.round((used.user + used.system) / 1000) }));
