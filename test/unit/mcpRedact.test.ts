import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Db } from '../../src/core/store/db';
import { tempDir } from './helpers';
import { CLI, connectMcp, type McpSession, resultItems, resultText, type ToolResult } from './mcpClient';
import { leak } from './secretCorpus';
import { SESSION_SECRETS, secretSession } from './secretSession';

/**
 * Issue 44, item 8: twenty secrets planted in a real transcript, indexed by `index` (offline distiller
 * and all), then read back through `agent-recall mcp --redact` by the SDK's client: no field of any
 * tool's answer (text or structured) may hold a secret or any 12-character piece of one.
 */

const QUERIES = [
  'registry login CI box',
  'mysql client config shop database',
  'Redis URL session cache',
  'rotate deploy key harbour release',
  'harbour release',
  'installation token release PR',
  'Twilio SMS alerts',
  'Slack webhook voice calls',
  'cloud credentials nightly export',
  'Stripe payouts map widget',
  'npm registry postgres export',
  'publish harbour package summariser',
  'Heroku netrc',
  'password token key secret',
];
const FILES = ['config/my.cnf', 'deploy/id_ed25519', 'alerts/sms.py', '.aws/credentials', '.pypirc'];

/** Every answer of every tool, for every query, exchange and file of the session. */
async function everyAnswer(s: McpSession): Promise<Array<{ asked: string; answer: ToolResult }>> {
  const out: Array<{ asked: string; answer: ToolResult }> = [];
  const ask = async (tool: string, args: Record<string, unknown>) => {
    const answer = await s.call(tool, args);
    assert.ok(!answer.isError, `${tool} ${JSON.stringify(args)}: ${resultText(answer)}`);
    out.push({ asked: `${tool} ${JSON.stringify(args)}`, answer });
    return answer;
  };
  const recent = await ask('recent', { limit: 20, maxTokens: 20000 });
  const ids = resultItems(recent).map((i) => String(i['id']));
  assert.equal(ids.length, 5, 'the five exchanges of the session are indexed');
  for (const id of ids) {
    await ask('read_exchange', { id, maxTokens: 20000 });
    // a cut answer ends inside the text: the cut must not leave a piece of a secret behind
    for (const maxTokens of [120, 250, 400]) await ask('read_exchange', { id, maxTokens });
  }
  for (const query of QUERIES) await ask('search', { query, limit: 20, maxTokens: 20000 });
  for (const file of FILES) await ask('file_history', { path: file, maxTokens: 20000 });
  return out;
}

/** The leaks in `answers`: what was asked, which secret and the piece found. */
function leaks(answers: ReadonlyArray<{ asked: string; answer: ToolResult }>): string[] {
  const found: string[] = [];
  for (const { asked, answer } of answers) {
    const all = `${resultText(answer)}\n${JSON.stringify(answer.structuredContent ?? {})}`;
    for (const s of SESSION_SECRETS) {
      const piece = leak(all, s.secret) ?? leak(all, JSON.stringify(s.secret).slice(1, -1));
      if (piece !== undefined) found.push(`${asked}: ${s.what}: ${piece}`);
    }
  }
  return [...new Set(found)];
}

describe('agent-recall mcp --redact over a transcript holding twenty secrets', () => {
  let db: string;
  let workspace: string;
  let plain: Array<{ asked: string; answer: ToolResult }>;
  let redacted: Array<{ asked: string; answer: ToolResult }>;

  before(async () => {
    const root = tempDir('recall-secrets-');
    workspace = path.join(root, 'ws', 'shop');
    const transcripts = path.join(root, 'projects');
    mkdirSync(workspace, { recursive: true });
    mkdirSync(transcripts);
    writeFileSync(path.join(transcripts, 'session.jsonl'), secretSession(workspace));
    db = path.join(root, 'recall.sqlite');
    const indexed = spawnSync(process.execPath, [CLI, 'index', '--root', transcripts, '--db', db, '--workspace', workspace, '--quiet'], { encoding: 'utf8' });
    assert.equal(indexed.status, 0, indexed.stderr);
    for (const [args, into] of [
      [['--no-redact'], (a: typeof plain) => (plain = a)],
      [['--redact'], (a: typeof plain) => (redacted = a)],
    ] as const) {
      const s = await connectMcp(['--db', db, '--workspace', workspace, ...args]);
      try {
        into(await everyAnswer(s));
      } finally {
        await s.close();
      }
    }
  });

  test('with --no-redact the answers hold every secret whole, and some snippet starts inside a key block', () => {
    const all = plain.map((a) => `${resultText(a.answer)}\n${JSON.stringify(a.answer.structuredContent)}`).join('\n');
    for (const s of SESSION_SECRETS) {
      for (const line of s.secret.split('\n')) assert.ok(all.includes(line), `${s.what} is in the store as written`);
    }
    // the case of a window opening inside a block: key body in a snippet whose BEGIN line is out of it
    const snippets = plain.flatMap((a) => resultItems(a.answer).map((i) => String(i['snippet'] ?? '')));
    const inside = snippets.filter((t) => /[A-Za-z0-9+/]{60} [A-Za-z0-9+/]{20}/.test(t) && !/BEGIN [A-Z ]*PRIVATE KEY/.test(t));
    assert.ok(inside.length > 0, 'some snippet opens inside a private key block');
  });

  test('with --redact no field of search, read_exchange, recent or file_history holds any piece of any secret', () => {
    assert.deepEqual(leaks(redacted), []);
    // what was redacted is said, so an agent knows a secret stood there
    assert.match(redacted.map((a) => resultText(a.answer)).join('\n'), /\[REDACTED:private-key\]/);
  });

  test('the distilled objects and rooms stored for the session hold no piece of any secret', async () => {
    const store = await Db.open(db, { readonly: true });
    after(() => store.close());
    const rows = await store.all<{ text: string }>(
      `SELECT d.core || ' ' || coalesce(d.context, '') AS text FROM distilled d
       UNION ALL SELECT r.key || ' ' || r.label FROM rooms r`,
    );
    assert.ok(rows.length >= 5);
    const text = rows.map((r) => r.text).join('\n');
    const found = SESSION_SECRETS.map((s) => [s.what, leak(text, s.secret)]).filter(([, piece]) => piece !== undefined);
    assert.deepEqual(found, []);
  });
});
