#!/usr/bin/env node
// A build's token counter (out/src/core/tokens.js) against js-tiktoken's cl100k on every text of a corpus: each
// exchange's verbatim and prompt from distillCpu.mjs's inputs file. A text holding a run of more than 256
// characters without whitespace is estimated, not counted exactly (tokens.ts MAX_RUN): such texts are compared
// with --baseline's counter instead (when given), the others with js-tiktoken. Prints one JSON line; exits 1 on
// any difference.
//
//   node test/bench/tokenCounts.mjs --build DIR --inputs FILE [--baseline DIR]
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { build: { type: 'string' }, inputs: { type: 'string' }, baseline: { type: 'string' } } });
if (!values.build || !values.inputs) {
  process.stderr.write('usage: node test/bench/tokenCounts.mjs --build DIR --inputs FILE [--baseline DIR]\n');
  process.exit(2);
}
const require = createRequire(import.meta.url);
const { countTokens } = require(join(resolve(values.build), 'out/src/core/tokens.js'));
const baseline = values.baseline ? require(join(resolve(values.baseline), 'out/src/core/tokens.js')).countTokens : undefined;
const { Tiktoken } = require('js-tiktoken/lite');
const encoder = new Tiktoken(require('js-tiktoken/ranks/cl100k_base'));

const texts = JSON.parse(readFileSync(values.inputs, 'utf8')).flatMap((e) => [e.verbatim, e.prompt]).filter((t) => typeof t === 'string');
const longRun = /[^\s]{257}/;
const out = { texts: texts.length, exact: 0, exactTokens: 0, estimated: 0, estimatedTokens: 0, differ: 0, unchecked: 0 };
for (const text of texts) {
  const got = countTokens(text);
  if (!longRun.test(text)) {
    out.exact++;
    out.exactTokens += got;
    if (got !== encoder.encode(text, [], []).length) out.differ++;
  } else {
    out.estimated++;
    out.estimatedTokens += got;
    if (!baseline) out.unchecked++;
    else if (got !== baseline(text)) out.differ++;
  }
}
process.stdout.write(`${JSON.stringify(out)}\n`);
process.exit(out.differ > 0 ? 1 : 0);
