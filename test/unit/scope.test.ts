import assert from 'node:assert/strict';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { test } from 'node:test';
import { defaultDiscovery, discoverSources } from '../../src/core/sources/discover';
import { ALL_HISTORY_STORE_FILE, findWorkspaceStore, STORE_FILE, storeFileName, workspaceStoreFile } from '../../src/core/storeLocation';
import { FIXTURES, tempDir } from './helpers';

/** Claude Code and Codex sessions of two projects, in the agents' own folders. */
async function twoProjects(): Promise<{ claude: string; codex: string; files: Record<string, string> }> {
  const home = tempDir();
  const claude = path.join(home, '.claude', 'projects');
  const codex = path.join(home, '.codex', 'sessions');
  const files: Record<string, string> = {};
  for (const [project, cwd] of [['tidepool', '/home/dev/tidepool'], ['orchard', '/home/dev/orchard']] as const) {
    const synthetic = (await readFile(path.join(FIXTURES, 'claude-code', 'synthetic.jsonl'), 'utf8')).replaceAll('/home/dev/tidepool', cwd);
    files[`claude ${project}`] = path.join(claude, `-home-dev-${project}`, `${project}-session.jsonl`);
    const rollout = (await readFile(path.join(FIXTURES, 'codex', 'envelope.jsonl'), 'utf8')).replaceAll('/home/dev/tidepool', cwd);
    files[`codex ${project}`] = path.join(codex, '2025', '11', '03', `rollout-2025-11-03T09-00-00-${project}.jsonl`);
    for (const [file, text] of [[files[`claude ${project}`]!, synthetic], [files[`codex ${project}`]!, rollout]] as const) {
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, text);
    }
  }
  return { claude, codex, files };
}

test('scope "workspace": every agent\'s sessions of another project are left out; "allHistory" keeps them, each with its own project (issue 39)', async () => {
  const { claude, codex, files } = await twoProjects();
  const base = { workspaceRoots: ['/home/dev/tidepool'], claudeRoots: [claude], codexRoots: [codex], agentRoots: [], extraRoots: [], includeSubagents: true };
  const found = async (allProjects: boolean): Promise<string[][]> =>
    (await discoverSources({ ...base, allProjects })).map((s) => [s.path, s.project ?? '']).sort();
  assert.deepEqual(await found(false), [[files['claude tidepool']!, '/home/dev/tidepool'], [files['codex tidepool']!, '/home/dev/tidepool']].sort());
  assert.deepEqual(
    await found(true),
    Object.entries(files).map(([key, file]) => [file, key.endsWith('orchard') ? '/home/dev/orchard' : '/home/dev/tidepool']).sort(),
  );
});

test('scope: the discovery every front end builds carries "allHistory" only when asked', () => {
  const env = { HOME: '/home/dev' };
  assert.equal(defaultDiscovery({ workspaceRoots: ['/w'] }, env).allProjects, undefined);
  assert.equal(defaultDiscovery({ workspaceRoots: ['/w'], allProjects: true }, env).allProjects, true);
});

test('scope: each scope has its own store file beside the other, the workspace\'s the one it always had', () => {
  assert.equal(storeFileName('workspace'), STORE_FILE);
  assert.equal(storeFileName('allHistory'), ALL_HISTORY_STORE_FILE);
  assert.notEqual(STORE_FILE, ALL_HISTORY_STORE_FILE);
});

test('scope: `agent-recall mcp --all-history` finds the all-history store of a workspace, not its own store', async () => {
  const ws = tempDir('recall-ws-');
  const storage = tempDir('recall-storage-');
  const own = workspaceStoreFile(storage, [ws]);
  await mkdir(path.dirname(own), { recursive: true });
  await writeFile(own, '');
  assert.equal(await findWorkspaceStore([ws], [storage], 'allHistory'), undefined, 'the workspace store is not all history');
  const all = workspaceStoreFile(storage, [ws], 'allHistory');
  assert.equal(path.dirname(all), path.dirname(own));
  await writeFile(all, '');
  assert.equal((await findWorkspaceStore([ws], [storage], 'allHistory'))?.file, all);
  assert.equal((await findWorkspaceStore([ws], [storage]))?.file, own);
});
