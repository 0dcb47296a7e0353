import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { api, extension, settledSummary } from './helpers';

interface EmbedSummary {
  state: string;
  exchanges: number;
  lastReport?: { embedded?: { modelId: string; embedded: Record<string, number> }; embedNotice?: string };
}

async function setModel(value: string | undefined): Promise<void> {
  await vscode.workspace.getConfiguration('agentRecall').update('embed.model', value, vscode.ConfigurationTarget.Global);
}

/** Changing the model setting starts an index run (see onConfigChange); wait for it and read its report. */
async function summaryAfterRun(): Promise<EmbedSummary> {
  await new Promise((r) => setTimeout(r, 300));
  return (await settledSummary(1)) as unknown as EmbedSummary;
}

describe('embedding model setting in the extension host', () => {
  after(() => setModel(undefined));

  it('by default the built-in model embeds the distilled exchanges and recall uses it, with nothing downloaded', async () => {
    await setModel(undefined);
    await settledSummary(1);
    assert.equal(vscode.workspace.getConfiguration('agentRecall').get('embed.model'), 'built-in');
    const r = await (await api()).search({ text: 'coupon codes at checkout', mode: 'core/vector', limit: 3 });
    assert.equal(r.semantic, true, r.notice);
    assert.ok(r.hits.length > 0 && r.hits[0]!.parts[0]!.signal === 'vector(core)');
    // what the recall panel and the agents' tool run (no mode named)
    const recall = await (await api()).search({ text: 'coupon codes at checkout', limit: 3 });
    assert.deepEqual([recall.mode, recall.fusion, recall.semantic], ['bm25(v)+vec(d)', 'selective', true], recall.notice);
  });

  it('an empty setting turns semantic search off: a vector mode says why, recall runs words only', async () => {
    await setModel('');
    await summaryAfterRun();
    const r = await (await api()).search({ text: 'coupon codes at checkout', mode: 'core/vector', limit: 3 });
    assert.equal(r.semantic, false);
    assert.match(r.notice ?? '', /agentRecall\.embed\.model\) is empty/);
    const plain = await (await api()).search({ text: 'coupon codes at checkout', limit: 3 });
    assert.deepEqual([plain.mode, plain.semantic, plain.notice], ['verbatim/bm25', false, undefined]);
  });

  it('a local model folder embeds the distilled exchanges after indexing', async () => {
    await settledSummary(1);
    await setModel(path.join(extension().extensionPath, '.cache/models/wink-static-100d'));
    const s = await summaryAfterRun();
    assert.equal(s.state, 'idle');
    assert.equal(s.lastReport?.embedded?.modelId, 'local:wink-static-100d');
    assert.ok((s.lastReport?.embedded?.embedded['core'] ?? 0) > 0, JSON.stringify(s.lastReport?.embedded));
    // the extension's searcher uses the same model: a vector mode runs semantically
    const r = await (await api()).search({ text: 'coupon codes at checkout', mode: 'core/vector', limit: 3 });
    assert.equal(r.semantic, true, r.notice);
    assert.ok(r.hits.length > 0 && r.hits[0]!.parts[0]!.signal === 'vector(core)');
    // turning semantic search on changes what the recall panel runs: BM25 with the vectors where it is unsure
    const recall = await (await api()).search({ text: 'coupon codes at checkout', limit: 3 });
    assert.deepEqual([recall.mode, recall.fusion, recall.semantic], ['bm25(v)+vec(d)', 'selective', true], recall.notice);
    assert.ok(recall.hits.length > 0);
  });

  it('a model that cannot load leaves indexing working and search lexical, without an error', async () => {
    await setModel('/no/such/model-folder');
    const s = await summaryAfterRun();
    assert.equal(s.state, 'idle');
    assert.equal(s.lastReport?.embedded, undefined);
    assert.ok(s.exchanges > 0, JSON.stringify(s));
    const r = await (await api()).search({ text: 'coupon codes', mode: 'bm25(v)+vec(d)' });
    assert.equal(r.semantic, false);
    assert.match(r.notice ?? '', /does not exist/);
    assert.ok(r.hits.length > 0, 'lexical search still answers');
  });
});
