import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { cp, mkdir, rm, utimes, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import { discover, discoverSources, DiscoveryMemo, type DiscoverOptions } from '../../src/core/sources/discover';
import { FIXTURES, tempDir } from './helpers';

/**
 * A Copilot Chat session is placed by the `workspace.json` of its storage folder and, for a multi-root workspace, by
 * the `.code-workspace` file that one names: a discovery with a memo keeps its placement while the session and both
 * files keep their size and time (its head and those files are not read again at each whole run), and places it again
 * when either of them changes, appears or goes.
 */

const options = (extraRoots: string[]): DiscoverOptions => ({ workspaceRoots: [], claudeRoots: [], codexRoots: [], extraRoots, includeSubagents: true });
const listed = (sources: ReadonlyArray<{ path: string; adapter: { agent: string }; project?: string }>): string[][] =>
  sources.map((s) => [s.path, s.adapter.agent, s.project ?? '']);

test('a Copilot chat placed by a multi-root workspace keeps its place from the memo while its files are as they were, and is placed again when one changes', async () => {
  const root = tempDir();
  const storage = path.join(root, 'workspaceStorage', '7f3e2a');
  await cp(path.join(FIXTURES, 'copilot', 'workspaceStorage', '7f3e2a', 'chatSessions'), path.join(storage, 'chatSessions'), { recursive: true });
  const [chat] = readdirSync(path.join(storage, 'chatSessions')).map((n) => path.join(storage, 'chatSessions', n));
  const config = path.join(root, 'team', 'tides.code-workspace');
  await mkdir(path.dirname(config), { recursive: true });
  const folders = (first: string): string => JSON.stringify({ folders: [{ path: first }, { path: 'docs' }] });
  await writeFile(config, folders('app'));
  await writeFile(path.join(storage, 'workspace.json'), JSON.stringify({ workspace: pathToFileURL(config).href }));
  const memo = new DiscoveryMemo();
  const found = async (): Promise<string[][]> => {
    const mine = listed((await discover(options([root]), memo)).sources);
    assert.deepEqual(mine, listed(await discoverSources(options([root]))), 'as a fresh discovery');
    return mine;
  };
  const team = path.dirname(config);
  assert.deepEqual(await found(), [[chat, 'copilot', path.join(team, 'app')]]);
  // the .code-workspace file rewritten to the same size, its time put back: the memo's place is kept (not read again)
  const time = new Date(Date.UTC(2026, 0, 1));
  await utimes(config, time, time);
  assert.deepEqual(await found(), [[chat, 'copilot', path.join(team, 'app')]]);
  await writeFile(config, folders('web'));
  await utimes(config, time, time);
  assert.deepEqual(listed((await discover(options([root]), memo)).sources), [[chat, 'copilot', path.join(team, 'app')]], 'from the memo: nothing read');
  // its time changed: read again, placed again
  await utimes(config, time, new Date(time.getTime() + 2000));
  assert.deepEqual(await found(), [[chat, 'copilot', path.join(team, 'web')]]);
  // the workspace.json names a folder now
  await writeFile(path.join(storage, 'workspace.json'), JSON.stringify({ folder: pathToFileURL(path.join(root, 'solo')).href }));
  assert.deepEqual(await found(), [[chat, 'copilot', path.join(root, 'solo')]]);
  // gone: no place
  await rm(path.join(storage, 'workspace.json'));
  assert.deepEqual(await found(), [[chat, 'copilot', '']]);
  await writeFile(path.join(storage, 'workspace.json'), JSON.stringify({ workspace: pathToFileURL(config).href }));
  assert.deepEqual(await found(), [[chat, 'copilot', path.join(team, 'web')]]);
  await rm(config);
  assert.deepEqual(await found(), [[chat, 'copilot', team]]);
});
