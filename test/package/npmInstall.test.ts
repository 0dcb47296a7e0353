import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Store } from '../../src/core/store/store';
import { workspaceStoreFile } from '../../src/core/storeLocation';
import { tempDir } from '../unit/helpers';
import { resultItems, resultText } from '../unit/mcpClient';
import { distillFixture, type FixtureConversation, writeConversation } from '../unit/searchFixture';

/**
 * The npm package `agent-recall` as a user gets it: packed by scripts/npmPackage.mjs, installed from the tarball
 * into an empty folder by npm (its dependencies from the registry, or npm's cache), then `npx agent-recall mcp
 * --workspace .` started in that folder by the MCP SDK's own client, which initializes, lists the tools and
 * searches a small store kept where the extension keeps it ($AGENT_RECALL_STORAGE stands for the editor's
 * global storage folder). Nothing of the repository's node_modules is reachable from there.
 */

const ROOT = path.resolve(__dirname, '../../..');

interface Packed {
  readonly file: string;
  readonly files: readonly string[];
  readonly size: number;
}

const conversation = (project: string): FixtureConversation => ({
  file: 'rate-limit.jsonl',
  agent: 'claude-code',
  project,
  exchanges: [
    {
      key: 'r1',
      text: 'User: why do uploads fail with 429?\nAssistant: The token bucket in src/limiter.ts refilled once a minute; it now refills every second.',
      startedAt: '2026-03-02T10:00:00Z',
      files: [{ path: 'src/limiter.ts', how: 'edit' }],
      distilled: { core: 'Uploads failed with 429 because the token bucket refilled once a minute; it now refills every second.', context: 'src/limiter.ts refill interval', rooms: [] },
    },
  ],
});

describe('the npm package, installed from its tarball into an empty folder', () => {
  let packed: Packed;
  let workspace: string;
  let storage: string;
  let client: Client;
  let stderr = '';

  before(async () => {
    const { packNpm } = (await import(pathToFileURL(path.join(ROOT, 'scripts/npmPackage.mjs')).href)) as { packNpm(): Packed };
    packed = packNpm();
    // the project folder is where the package is installed, as `npx` in a project would find it
    workspace = realpathSync(tempDir('agent-recall-npm-'));
    writeFileSync(path.join(workspace, 'package.json'), '{ "private": true }\n');
    const install = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', packed.file], {
      cwd: workspace,
      encoding: 'utf8',
      timeout: 15 * 60_000,
    });
    assert.equal(install.status, 0, `npm install ${packed.file} failed:\n${install.stderr}`);

    storage = tempDir('agent-recall-storage-');
    const file = workspaceStoreFile(storage, [workspace]);
    mkdirSync(path.dirname(file), { recursive: true });
    const store = await Store.open(file);
    const conv = conversation(workspace);
    await writeConversation(store, path.dirname(file), conv);
    await distillFixture(store, [conv]);
    await store.close();

    const transport = new StdioClientTransport({
      command: 'npx',
      args: ['--no', 'agent-recall', 'mcp', '--workspace', '.'],
      cwd: workspace,
      env: { PATH: process.env['PATH'] ?? '', HOME: workspace, AGENT_RECALL_STORAGE: storage },
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    client = new Client({ name: 'agent-recall-package-test', version: '1.0.0' });
    await client.connect(transport);
  });
  after(async () => {
    await client?.close();
    for (const dir of [workspace, storage]) if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('the tarball holds the CLI bundles, its worker threads, model and prompts, and no source maps', () => {
    for (const f of ['package.json', 'README.md', 'LICENSE', 'dist/cli.js', 'dist/commands.js', 'dist/mcp.js', 'dist/embedWorker.js', 'dist/indexWorker.js', 'dist/models/word-vectors-100d/vectors.bin', 'prompts/distill-v1.md']) {
      assert.ok(packed.files.includes(f), `${f} is not in the package`);
    }
    assert.deepEqual(packed.files.filter((f) => f.endsWith('.map')), []);
  });

  test('npm installed the CLI with its two native pieces and nothing of the extension\'s stack', () => {
    const modules = path.join(workspace, 'node_modules');
    assert.ok(existsSync(path.join(modules, '.bin', process.platform === 'win32' ? 'agent-recall.cmd' : 'agent-recall')));
    assert.ok(existsSync(path.join(modules, '@vscode/sqlite3/build/Release/vscode-sqlite3.node')), 'the SQLite addon was built');
    assert.ok(existsSync(path.join(modules, `sqlite-vec-${process.platform === 'win32' ? 'windows' : process.platform}-${process.arch}`)), 'the platform\'s sqlite-vec');
    for (const heavy of ['onnxruntime-node', '@huggingface/transformers', '@anthropic-ai/sdk', 'typescript']) assert.ok(!existsSync(path.join(modules, heavy)), `${heavy} was installed`);
  });

  test('initialize: the server names itself with the package\'s version', () => {
    const version = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
    assert.deepEqual(client.getServerVersion(), { name: 'agent-recall', version });
    assert.match(stderr, new RegExp(`serving ${storage.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`), stderr);
  });

  test('tools/list offers the four read-only tools', async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), ['file_history', 'read_exchange', 'recent', 'search']);
  });

  test('search finds the workspace\'s exchange', async () => {
    const r = (await client.callTool({ name: 'search', arguments: { query: 'uploads fail 429 token bucket' } })) as Parameters<typeof resultText>[0];
    assert.ok(!r.isError, resultText(r));
    const [first] = resultItems(r as { structuredContent?: Record<string, unknown> });
    assert.equal(first?.['agent'], 'claude-code');
    assert.deepEqual(first?.['files'], ['src/limiter.ts']);
    assert.match(String(first?.['core']), /token bucket refilled once a minute/);
  });
});
