import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** `node dist/cli.js mcp ARGS` spawned over stdio and driven by the SDK's own client, as an agent meets it. */

export const CLI = path.resolve(__dirname, '../../../dist/cli.js');

export type ToolResult = CallToolResult & { structuredContent?: Record<string, unknown> };

export interface McpSession {
  readonly client: Client;
  readonly stderr: () => string;
  call(name: string, args: Record<string, unknown>): Promise<ToolResult>;
  close(): Promise<void>;
}

export async function connectMcp(args: readonly string[], env: Record<string, string> = {}): Promise<McpSession> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', ...args],
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', ...env },
    stderr: 'pipe',
  });
  let err = '';
  transport.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const client = new Client({ name: 'agent-recall-test', version: '1.0.0' });
  await client.connect(transport);
  return {
    client,
    stderr: () => err,
    call: async (name, a) => (await client.callTool({ name, arguments: a })) as ToolResult,
    close: () => client.close(),
  };
}

/** The text an agent reads. */
export function resultText(r: CallToolResult): string {
  return r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}

export type Item = Record<string, unknown>;

/** The items of an answer's structured content. */
export const resultItems = (r: { structuredContent?: Record<string, unknown> }): Item[] => (r.structuredContent?.['items'] as Item[]) ?? [];
