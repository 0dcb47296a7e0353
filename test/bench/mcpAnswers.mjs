#!/usr/bin/env node
// Every answer the MCP server's `search` gives, so that a change meant to leave answers alone can be checked byte
// for byte (searchAnswers.mjs does the same for `search --json`):
//   node test/bench/mcpAnswers.mjs --db STORE --queries A.jsonl[,B.jsonl] [--cli DIST/cli.js] [--idle MS] [--workspace DIR] > answers.jsonl
// One server with redaction (the default) and one with --no-redact, each with the built-in model; per query a
// default search and one with `limit 3, maxTokens 300`, each asked twice (the second answer comes from what the
// server remembers of the first). One line per call: its text and structured content. Compare two builds with `cmp`.
// --idle MS waits after the handshake, so that the answers come after the server's warm-up (server.ts). --workspace DIR
// serves DIR's part of the store, as an agent's server does (nothing outside it, scopedMemory.ts).
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { readQueries } from './lib.mjs';

const { values } = parseArgs({
  options: {
    db: { type: 'string' },
    queries: { type: 'string' },
    cli: { type: 'string', default: fileURLToPath(new URL('../../dist/cli.js', import.meta.url)) },
    // wait this long after the handshake before the first call: the server warms itself up when idle (server.ts)
    idle: { type: 'string', default: '0' },
    workspace: { type: 'string' },
  },
});
if (!values.db || !values.queries) {
  console.error('usage: node test/bench/mcpAnswers.mjs --db STORE --queries A.jsonl[,B.jsonl] [--cli DIST/cli.js] [--idle MS] [--workspace DIR]');
  process.exit(2);
}
const queries = readQueries(values.queries);

for (const redaction of [[], ['--no-redact']]) {
  const client = new Client({ name: 'mcp-answers', version: '1.0.0' });
  const args = [values.cli, 'mcp', '--db', values.db, ...(values.workspace ? ['--workspace', values.workspace] : []), '--embed-model', 'built-in', ...redaction];
  await client.connect(new StdioClientTransport({ command: process.execPath, args, stderr: 'ignore' }));
  if (Number(values.idle) > 0) await new Promise((resolve) => setTimeout(resolve, Number(values.idle)));
  for (const round of [1, 2]) {
    for (const q of queries) {
      for (const extra of [{}, { limit: 3, maxTokens: 300 }]) {
        const r = await client.callTool({ name: 'search', arguments: { query: q.text, ...extra } });
        const call = { redact: redaction.length === 0, round, id: q.id, ...extra };
        process.stdout.write(`${JSON.stringify({ call, isError: r.isError ?? false, content: r.content, structured: r.structuredContent })}\n`);
      }
    }
  }
  await client.close();
}
