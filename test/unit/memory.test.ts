import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { main } from '../../src/cli';
import { DEFAULT_SEGMENT_OPTIONS } from '../../src/core/segment';
import { Memory } from '../../src/core/memory';
import { FIXTURES, tempDir } from './helpers';

const OPTIONS = {
  discover: { workspaceRoots: [], claudeRoots: [], codexRoots: [], extraRoots: [FIXTURES], includeSubagents: true },
  segment: DEFAULT_SEGMENT_OPTIONS,
};

test('one Memory runs the pipeline and answers search, recall and every read model', async () => {
  const memory = await Memory.open(path.join(tempDir(), 'm.sqlite'));
  try {
    const report = await memory.index(OPTIONS);
    assert.ok(report.exchangesWritten > 5, 'fixtures indexed');
    assert.equal(report.distill?.distilled, report.exchangesWritten, 'the offline distiller ran by default');
    const stats = await memory.stats();
    assert.equal(stats.exchanges, report.exchangesWritten);

    const [first] = await memory.list({ limit: 1 });
    const exchange = await memory.exchange(first!.exchangeId.slice(0, 8));
    assert.equal(exchange?.exchangeId, first!.exchangeId, 'an id prefix finds the exchange');
    const distilled = await memory.distilled(first!.exchangeId);
    assert.ok(distilled?.exchangeCore && distilled.distilledTokens > 0);
    assert.ok((await memory.neighbours(first!.exchangeId))!.total >= 1);

    const word = distilled!.exchangeCore.split(/\W+/).find((w) => w.length > 5)!;
    const result = await memory.search({ text: word, limit: 5 });
    assert.ok(result.hits.length > 0, `a hit for "${word}"`);
    const answer = await memory.recall({ text: word });
    assert.equal(answer.candidates[0]!.exchangeId, result.hits[0]!.exchangeId, 'recall ranks as search does');
    assert.ok(answer.candidates[0]!.headline && answer.candidates[0]!.why);
    const excluded = await memory.recall({ text: word, exclude: [answer.candidates[0]!.exchangeId] });
    assert.ok(!excluded.candidates.some((c) => c.exchangeId === answer.candidates[0]!.exchangeId), '"not these" removes it');
    const recent = await memory.recall({ text: '  ' });
    assert.equal(recent.recent, true, 'an empty request lists the most recent exchanges');
    assert.deepEqual(recent.candidates.map((c) => c.exchangeId), (await memory.recent(20)).map((l) => l.exchangeId));
    assert.ok(recent.candidates.every((c) => c.confidence === undefined), 'nothing was matched: no confidence badge');
    // chips alone still list the recent exchanges, of that agent and time only, without those set aside
    const agents = new Set(recent.candidates.map((c) => c.agent));
    assert.ok(agents.size > 1, 'the fixtures hold several agents');
    const agent = recent.candidates[recent.candidates.length - 1]!.agent;
    const ofAgent = await memory.recall({ text: '', facets: { agent } });
    assert.equal(ofAgent.recent, true);
    assert.ok(ofAgent.candidates.length > 0 && ofAgent.candidates.every((c) => c.agent === agent), `only ${agent}`);
    const hidden = await memory.recall({ text: '', facets: { agent }, exclude: [ofAgent.candidates[0]!.exchangeId] });
    // the rest keep their order; a full list takes in the next one after them
    const shown = ofAgent.candidates.map((c) => c.exchangeId);
    assert.deepEqual(hidden.candidates.map((c) => c.exchangeId).slice(0, shown.length - 1), shown.slice(1), '"not these" sets them aside');
    assert.ok(!hidden.candidates.some((c) => c.exchangeId === shown[0]), 'the one set aside is not shown');
    const future = await memory.recall({ text: '', facets: { time: 'week' } }, undefined, Date.parse('2100-01-01'));
    assert.deepEqual(future.candidates, [], 'a time chip keeps only exchanges of that time');
    const seed = answer.candidates[0]!.exchangeId;
    const like = await memory.recall({ text: '', facets: { like: { id: seed, label: 'seed' } } });
    assert.ok(like.candidates.length > 0, 'exchanges like the seed');
    assert.ok(!like.candidates.some((c) => c.exchangeId === seed), '"more like this" never returns the seed itself');
    assert.equal(await memory.moreLikeThis(first!.exchangeId), `${distilled!.exchangeCore} ${distilled!.specificContext}`.replace(/\s+/g, ' ').trim().slice(0, 300));

    const rooms = await memory.rooms('size');
    assert.ok(rooms.length > 0);
    assert.ok((await memory.roomExchanges(rooms[0]!.id)).length === rooms[0]!.count);
    const files = await memory.fileTouchCounts();
    assert.ok(files.length > 0);
    assert.equal((await memory.fileHistory(files[0]!.path)).length, Math.min(files[0]!.count, 50));
    const digest = await memory.digest(300);
    assert.ok(digest.included > 0 && digest.tokens <= 300);
    assert.equal((await memory.listings([first!.exchangeId, 'missing']))[0]!.exchangeId, first!.exchangeId);
    assert.equal((await memory.compression()).distilled, report.exchangesWritten);
    assert.equal((await memory.check()).ok, true);
  } finally {
    await memory.close();
  }
});

test('a distill gate sees the backlog after ingestion and may leave it waiting, with its note', async () => {
  const memory = await Memory.open(path.join(tempDir(), 'g.sqlite'));
  try {
    let seen = -1;
    const waiting = await memory.index({
      ...OPTIONS,
      distiller: async (backlog) => {
        seen = await backlog.count();
        assert.equal((await backlog.sample(2)).length, 2);
        return { note: 'waits for consent' };
      },
    });
    assert.equal(seen, waiting.exchangesWritten, 'the gate sees every new exchange');
    assert.equal(waiting.distill, undefined);
    assert.equal(waiting.distillNote, 'waits for consent');
    assert.equal(await memory.countPendingDistillation(), seen);
    const run = await memory.index({ ...OPTIONS, distiller: async () => ({ distiller: memory.offlineDistiller() }) });
    assert.equal(run.distill?.distilled, seen, 'a gate that agrees runs its distiller on the backlog');
    assert.equal(await memory.countPendingDistillation(), 0);
  } finally {
    await memory.close();
  }
});

test('CLI index --workspace reads the agents\' default folders, as VS Code does', async () => {
  const home = tempDir();
  const projects = path.join(home, 'claude', 'projects', '-home-dev-tidepool');
  mkdirSync(projects, { recursive: true });
  copyFileSync(path.join(FIXTURES, 'claude-code', 'synthetic.jsonl'), path.join(projects, 'synthetic.jsonl'));
  const saved = { claude: process.env['CLAUDE_CONFIG_DIR'], codex: process.env['CODEX_HOME'] };
  process.env['CLAUDE_CONFIG_DIR'] = path.join(home, 'claude');
  process.env['CODEX_HOME'] = path.join(home, 'codex');
  try {
    const out: string[] = [];
    const db = path.join(home, 'w.sqlite');
    const code = await main(['index', '--workspace', '/home/dev/tidepool', '--db', db, '--json', '--quiet'], { out: (s) => out.push(s), err: () => undefined });
    assert.equal(code, 0);
    const summary = JSON.parse(out[0]!) as { sources: number; exchangesWritten: number };
    assert.equal(summary.sources, 1, 'the session under CLAUDE_CONFIG_DIR/projects, kept by its recorded cwd');
    assert.ok(summary.exchangesWritten > 0);
  } finally {
    for (const [k, v] of [['CLAUDE_CONFIG_DIR', saved.claude], ['CODEX_HOME', saved.codex]] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
});

/**
 * Issue 44, item 12: an extra root that does not exist (a mistyped `agentRecall.sources.extraRoots`) was read as
 * "nothing there". The report names it, for the Index view and the log, and the other roots are still read.
 */
test('an index run names the extra roots that are not folders, and reads the others', async () => {
  const memory = await Memory.open(path.join(tempDir(), 'm.sqlite'));
  try {
    const missing = path.join(tempDir(), 'no-such-folder');
    const report = await memory.index({ ...OPTIONS, discover: { ...OPTIONS.discover, extraRoots: [missing, FIXTURES] }, distiller: false });
    assert.deepEqual(report.unreadableRoots, [{ root: missing, reason: 'no such folder' }]);
    assert.ok(report.exchangesWritten > 0, 'the fixtures root is read');
    const clean = await memory.index({ ...OPTIONS, distiller: false });
    assert.equal(clean.unreadableRoots, undefined);
  } finally {
    await memory.close();
  }
});
