#!/usr/bin/env node
// Grows a real store to a target size for latency measurements at scale: copies it, then replicates its
// conversations, exchanges (FTS rows via the triggers), files, distilled objects and their facets under
// new ids until it holds --exchanges rows. Replicas keep their source file and lines, so `eval` still judges
// them (a replica of the right exchange is right). Vectors are not copied: run `embed` on the result.
// Usage: node test/bench/replicateStore.mjs --from SMALL.sqlite --to BIG.sqlite [--exchanges 50000]
import { copyFileSync, rmSync } from 'node:fs';
import { parseArgs } from 'node:util';
import sqlite3 from '@vscode/sqlite3';

const { values } = parseArgs({ options: { from: { type: 'string' }, to: { type: 'string' }, exchanges: { type: 'string' } } });
if (!values.from || !values.to) throw new Error('usage: --from SMALL.sqlite --to BIG.sqlite [--exchanges 50000]');
const target = Number(values.exchanges ?? 50_000);
for (const suffix of ['', '-wal', '-shm']) rmSync(values.to + suffix, { force: true });
copyFileSync(values.from, values.to);

const raw = new sqlite3.Database(values.to);
const run = (sql, p = []) => new Promise((res, rej) => raw.run(sql, p, function (e) { if (e) rej(e); else res(this.changes); }));
const get = (sql, p = []) => new Promise((res, rej) => raw.get(sql, p, (e, r) => (e ? rej(e) : res(r))));

const base = (await get('SELECT count(*) AS c FROM exchanges')).c;
const copies = Math.ceil(target / base) - 1;
for (const table of ['embedding_model', 'vector_rows', 'verbatim_chunks']) await run(`DELETE FROM ${table}`).catch(() => undefined);
for (let k = 1; k <= copies; k++) {
  const want = Math.min(base, target - base * k);
  if (want <= 0) break;
  const tag = `~r${k}`;
  await run('BEGIN');
  await run(`INSERT INTO conversations(id, source_id, agent, session_id, project, git_branch, title, started_at, is_subagent, parent_session_id, model, line)
    SELECT id || ?, source_id, agent, session_id || ?, project, git_branch, title, started_at, is_subagent, parent_session_id, model, line
    FROM conversations WHERE id NOT LIKE '%~r%'`, [tag, tag]);
  await run(`INSERT INTO exchanges(id, conversation_id, source_id, part, ply_start, ply_end, line_start, line_end, byte_start, started_at, ended_at, prompt, verbatim, verbatim_tokens)
    SELECT id || ?, conversation_id || ?, source_id, part, ply_start, ply_end, line_start, line_end, byte_start, started_at, ended_at, prompt, verbatim, verbatim_tokens
    FROM exchanges WHERE id NOT LIKE '%~r%' ORDER BY n LIMIT ?`, [tag, tag, want]);
  await run(`INSERT INTO files_touched(exchange_n, path, how, lines)
    SELECT c.n, f.path, f.how, f.lines FROM files_touched f JOIN exchanges o ON o.n = f.exchange_n JOIN exchanges c ON c.id = o.id || ?`, [tag]);
  await run(`INSERT INTO distilled(exchange_n, core, context, distiller, model, prompt_version, content_hash, tokens, created_at)
    SELECT c.n, d.core, d.context, d.distiller, d.model, d.prompt_version, d.content_hash, d.tokens, d.created_at
    FROM distilled d JOIN exchanges o ON o.n = d.exchange_n JOIN exchanges c ON c.id = o.id || ?`, [tag]);
  await run(`INSERT INTO exchange_rooms(exchange_n, room_id, relevance)
    SELECT c.n, r.room_id, r.relevance FROM exchange_rooms r JOIN exchanges o ON o.n = r.exchange_n JOIN exchanges c ON c.id = o.id || ?`, [tag]);
  await run(`INSERT INTO distilled_fts(rowid, core, context, files, rooms)
    SELECT c.n, f.core, f.context, f.files, f.rooms FROM distilled_fts f JOIN exchanges o ON o.n = f.rowid JOIN exchanges c ON c.id = o.id || ?`, [tag]);
  await run('COMMIT');
  process.stderr.write(`copy ${k}/${copies}\n`);
}
console.log(`${(await get('SELECT count(*) AS c FROM exchanges')).c} exchanges in ${values.to}`);
await new Promise((res) => raw.close(res));
