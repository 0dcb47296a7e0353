import assert from 'node:assert/strict';
import { writeFileSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import type { IndexReport } from '../../src/core/indexer';
import type { DiscoveredSource } from '../../src/core/sources/discover';
import { ADAPTERS } from '../../src/core/sources/registry';
import { KnownSources, mergeLiveReport } from '../../src/host/knownSources';
import { tempDir } from './helpers';

// Live indexing reads only the transcripts an agent wrote, when the last whole run found them (issue 41: at 12,095
// files, a one-exchange run spent 3.6 s discovering every source again).

const adapter = ADAPTERS.find((a) => a.agent === 'claude-code')!;

function sources(dir: string, ...names: string[]): DiscoveredSource[] {
  return names.map((n) => {
    writeFileSync(path.join(dir, n), '{}\n');
    return { path: path.join(dir, n), adapter };
  });
}

test('a change among the sources of the same discovery names those sources; anything else asks for a whole run', async () => {
  const dir = tempDir();
  const [a, b, c] = sources(dir, 'a.jsonl', 'b.jsonl', 'c.jsonl');
  const known = new KnownSources();
  assert.equal(await known.sourcesOf('k', new Set([a!.path])), undefined, 'nothing known before a whole run');
  known.remember('k', [a!, b!, c!]);
  assert.deepEqual(await known.sourcesOf('k', new Set([a!.path, c!.path])), [a, c]);
  assert.equal(await known.sourcesOf('other settings', new Set([a!.path])), undefined, 'another discovery (roots, scope changed)');
  assert.equal(await known.sourcesOf('k', new Set([a!.path, path.join(dir, 'new.jsonl')])), undefined, 'a file discovery never saw');
  assert.equal(await known.sourcesOf('k', new Set()), undefined);
  rmSync(b!.path);
  assert.equal(await known.sourcesOf('k', new Set([b!.path])), undefined, 'a source gone');
  known.forget();
  assert.equal(await known.sourcesOf('k', new Set([a!.path])), undefined);
});

test("a live run's report keeps the whole run's sources and other failures, with this run's figures", () => {
  const report = (over: Partial<IndexReport>): IndexReport => ({
    sources: 0, parsed: 0, unchanged: 0, failed: [], bytesParsed: 0, exchangesWritten: 0, exchangesKept: 0, duplicates: 0, parseMs: 0, cancelled: false, tokensCounted: 0, stages: {}, ...over,
  });
  const whole = report({ sources: 40, parsed: 40, failed: [{ path: '/x/a.jsonl', error: 'half written' }, { path: '/x/b.jsonl', error: 'unreadable' }], unreadableRoots: [{ root: '/gone', reason: 'no such folder' }] });
  const live = report({ sources: 1, parsed: 1, exchangesWritten: 1 });
  const merged = mergeLiveReport(whole, live, [{ path: '/x/a.jsonl', adapter }]);
  assert.deepEqual([merged.sources, merged.parsed, merged.exchangesWritten], [40, 1, 1]);
  assert.deepEqual(merged.failed, [{ path: '/x/b.jsonl', error: 'unreadable' }], 'a.jsonl was read again and is fine now');
  assert.deepEqual(merged.unreadableRoots, whole.unreadableRoots);
  assert.equal(mergeLiveReport(undefined, live, []), live);
});
