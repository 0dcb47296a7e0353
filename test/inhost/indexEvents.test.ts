import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { api, fixture, settledSummary } from './helpers';

describe('Index events', () => {
  it('carry the summary they changed: progress ticks repeat the last one, the end of a run brings the new one', async () => {
    const a = await api();
    const before = (await settledSummary(fixture().expected.exchanges))!;
    const events: Array<{ state: string; progress?: string; summary: { exchanges: number; lastIndexedAt?: Date } }> = [];
    const sub = a.onIndexChange((e) => events.push(e));
    try {
      await vscode.commands.executeCommand('agentRecall.indexNow');
      await a.waitForIndexIdle();
    } finally {
      sub.dispose();
    }
    assert.equal(events[0]?.state, 'indexing');
    const ticks = events.filter((e) => e.progress);
    assert.ok(ticks.length > 0, 'progress ticks are events too');
    for (const e of events.slice(0, -1)) assert.equal(e.summary.lastIndexedAt, before.lastIndexedAt, 'a tick carries the summary as it stood');
    const last = events.at(-1)!;
    assert.equal(last.state, 'idle');
    assert.equal(last.progress, undefined);
    assert.ok(last.summary.lastIndexedAt && last.summary.lastIndexedAt !== before.lastIndexedAt, 'the end of the run carries the new summary');
    assert.equal(last.summary.exchanges, before.exchanges);
  });
});
