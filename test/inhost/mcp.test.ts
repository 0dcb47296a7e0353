import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { EXTENSION_STORAGE_ID, STORE_FILE, workspaceStoreKey } from '../../src/core/storeLocation';
import { api, extension, fixture, settledSummary } from './helpers';

describe('MCP server for agent mode', () => {
  before(async () => {
    await settledSummary(fixture().expected.exchanges);
  });

  it('registers its MCP server definition provider (VS Code 1.101+ has the API)', async () => {
    const a = await api();
    const lm = vscode.lm as unknown as { registerMcpServerDefinitionProvider?: unknown };
    assert.equal(typeof lm.registerMcpServerDefinitionProvider, 'function', `VS Code ${vscode.version} should have the MCP API`);
    assert.equal(a.mcp.registered, true);
    const launch = a.mcp.launch()!;
    assert.equal(launch.command, process.execPath);
    // the default model, built into the extension: the server finds it beside its own code
    assert.deepEqual(launch.args.slice(1), ['mcp', '--db', a.storeFile, '--workspace', fixture().workspace, '--redact', '--embed-model', 'built-in']);
    assert.ok(launch.args[0]!.endsWith(path.join('dist', 'cli.js')));
  });

  it('passes --no-redact when redaction is turned off (the server redacts unless told not to)', async () => {
    const setRedact = (value: boolean | undefined) => vscode.workspace.getConfiguration('agentRecall').update('mcp.redactSecrets', value, vscode.ConfigurationTarget.Global);
    await setRedact(false);
    try {
      const args = (await api()).mcp.launch()!.args;
      assert.ok(args.includes('--no-redact') && !args.includes('--redact'), args.join(' '));
    } finally {
      await setRedact(undefined);
    }
    assert.ok((await api()).mcp.launch()!.args.includes('--redact'));
  });

  describe('with semantic search on', () => {
    const setModel = (value: string | undefined) => vscode.workspace.getConfiguration('agentRecall').update('embed.model', value, vscode.ConfigurationTarget.Global);
    // changing the model starts an index run (it embeds with the new one): let it finish
    const settled = async () => {
      await new Promise((r) => setTimeout(r, 300));
      await settledSummary(1);
    };
    after(async () => {
      await setModel(undefined);
      await settled();
    });

    it('passes a model folder, and the server it starts searches with that model', async () => {
      const folder = path.join(extension().extensionPath, '.cache/models/wink-static-100d');
      await setModel(folder);
      await settled();
      const launch = (await api()).mcp.launch()!;
      assert.deepEqual(launch.args.slice(-2), ['--embed-model', folder]);
      const transport = new StdioClientTransport({ command: launch.command, args: launch.args, env: { ...launch.env, PATH: process.env['PATH'] ?? '' }, stderr: 'pipe' });
      let stderr = '';
      transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
      const client = new Client({ name: 'inhost-test', version: '1.0.0' });
      await client.connect(transport);
      try {
        const found = (await client.callTool({ name: 'search', arguments: { query: 'coupon codes at checkout' } })) as CallToolResult & { structuredContent: { items: unknown[] } };
        assert.ok(!found.isError && found.structuredContent.items.length > 0);
        assert.match(stderr, /searching with local:wink-static-100d too/);
      } finally {
        await client.close();
      }
    });

    it('passes a hub id with the extension\'s model cache (the server never downloads)', async () => {
      await setModel('Xenova/all-MiniLM-L6-v2');
      await settled();
      const args = (await api()).mcp.launch()!.args;
      assert.deepEqual(args.slice(-4, -1), ['--embed-model', 'Xenova/all-MiniLM-L6-v2', '--model-cache']);
      assert.ok(args.at(-1)!.endsWith(path.join('globalStorage', EXTENSION_STORAGE_ID, 'models')), args.at(-1));
    });
  });

  it('keeps the store where `agent-recall mcp --workspace DIR` looks for it', async () => {
    const a = await api();
    const expected = path.join('globalStorage', EXTENSION_STORAGE_ID, 'workspaces', workspaceStoreKey([fixture().workspace]), STORE_FILE);
    assert.ok(a.storeFile!.endsWith(expected), `${a.storeFile} ends with ${expected}`);
  });

  it('starts a server that answers an MCP client with this workspace\'s memory', async () => {
    const launch = (await api()).mcp.launch()!;
    const transport = new StdioClientTransport({ command: launch.command, args: launch.args, env: { ...launch.env, PATH: process.env['PATH'] ?? '' }, stderr: 'pipe' });
    const client = new Client({ name: 'inhost-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const tools = (await client.listTools()).tools.map((t) => t.name).sort();
      assert.deepEqual(tools, ['file_history', 'read_exchange', 'recent', 'search']);
      const found = (await client.callTool({ name: 'search', arguments: { query: 'WELCOME10 coupon case-insensitive' } })) as CallToolResult & { structuredContent: { items: Array<{ id: string }> } };
      assert.ok(!found.isError);
      const id = found.structuredContent.items[0]!.id;
      const read = (await client.callTool({ name: 'read_exchange', arguments: { id } })) as CallToolResult;
      const text = read.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
      assert.match(text, /WELCOME10/);
      const history = (await client.callTool({ name: 'file_history', arguments: { path: 'src/checkout.js' } })) as CallToolResult & { structuredContent: { items: unknown[] } };
      assert.ok(history.structuredContent.items.length >= 1);
    } finally {
      await client.close();
    }
  });
});
