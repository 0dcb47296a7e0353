import assert from 'node:assert/strict';
import { cp } from 'node:fs/promises';
import * as path from 'node:path';
import { test } from 'node:test';
import { indexWorkspace } from '../../src/core/indexer';
import { discover, type DiscoverOptions } from '../../src/core/sources/discover';
import { Store } from '../../src/core/store/store';
import { FIXTURES, rowsPerStatement, statementsOf, tempDir } from './helpers';

test("the first look's states: unknown sources as undefined, changed or unstated ones with their state, unchanged ones left out, in one pass over the paths", async () => {
  const root = path.join(tempDir(), 'fixtures');
  await cp(path.join(FIXTURES, 'claude-code'), root, { recursive: true });
  const options: DiscoverOptions = { workspaceRoots: [], claudeRoots: [], codexRoots: [], extraRoots: [root], includeSubagents: true };
  const store = await Store.open(path.join(tempDir(), 's.sqlite'));
  try {
    await indexWorkspace(store, { discover: options, segment: { minChars: 100, maxPlies: 20 }, distiller: false });
    const found = await discover(options);
    const stated = found.sources.map((s) => ({ path: s.path, size: found.seen.get(s.path)!.size, mtimeMs: Math.floor(found.seen.get(s.path)!.mtimeMs) }));
    assert.ok(stated.length >= 3, `${stated.length} sources`);
    let states: Awaited<ReturnType<Store['sourcesToLook']>> | undefined;
    const statements = await statementsOf(store.db, async () => {
      states = await store.sourcesToLook(stated);
    });
    assert.deepEqual([...states!.keys()], [], 'every source unchanged');
    assert.equal(statements.filter((sql) => sql.includes('json_each')).length, 1, 'one pass over the paths');
    const [a, b, ...rest] = stated;
    const looks = await store.sourcesToLook([{ path: a!.path }, { ...b!, size: b!.size + 1 }, ...rest, { path: path.join(root, 'new.jsonl'), size: 1, mtimeMs: 1 }]);
    assert.deepEqual([...looks.keys()].sort(), [a!.path, b!.path, path.join(root, 'new.jsonl')].sort());
    assert.equal(looks.get(a!.path)?.size, a!.size, 'a source given without its stat: its state');
    assert.equal(looks.get(b!.path)?.size, b!.size, 'a source seen at another size: its stored state');
    assert.equal(looks.get(path.join(root, 'new.jsonl')), undefined, 'not in the store');
    await store.recordSourceError(rest[0]!.path, 'claude-code', 'unreadable');
    assert.deepEqual([...(await store.sourcesToLook(stated)).keys()], [rest[0]!.path], 'a source whose last read failed');
  } finally {
    await store.close();
  }
});

test("the first look's look-up reads a page of paths a statement: a first index's thousands of unknown sources are not one task's rows", async () => {
  const store = await Store.open(path.join(tempDir(), 's.sqlite'));
  try {
    const paths = Array.from({ length: 2_500 }, (_, i) => path.join(tempDir(), `s${String(i).padStart(4, '0')}.jsonl`));
    const rows = rowsPerStatement(store);
    const states = await store.sourcesToLook(paths.map((p) => ({ path: p, size: 1, mtimeMs: 1 })));
    assert.deepEqual([...states.keys()].sort(), [...paths].sort(), 'every one of them, unknown');
    assert.ok([...states.values()].every((s) => s === undefined));
    assert.ok(rows.length >= 3 && Math.max(...rows) <= 1_000, `rows a statement: ${rows.join(', ')}`);
  } finally {
    await store.close();
  }
});
