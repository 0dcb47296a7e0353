import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/**
 * Two ways to talk to `node dist/cli.js mcp ARGS` over stdio: the SDK's own client, as an agent meets it, and a
 * raw line writer (RawSession) for what no well-behaved client sends (broken JSON, invalid messages, a 12 MiB line).
 */

export const CLI = path.resolve(__dirname, '../../../dist/cli.js');

export type ToolResult = CallToolResult & { structuredContent?: Record<string, unknown> };

export interface McpSession {
  readonly client: Client;
  readonly stderr: () => string;
  /** Stderr once it matches `re` (lines written after the handshake: the server loads its model beside it). */
  stderrMatching(re: RegExp, timeoutMs?: number): Promise<string>;
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
  const waiting = new Set<() => void>();
  transport.stderr?.on('data', (d: Buffer) => {
    err += d.toString();
    for (const check of waiting) check();
  });
  const client = new Client({ name: 'agent-recall-test', version: '1.0.0' });
  await client.connect(transport);
  return {
    client,
    stderr: () => err,
    stderrMatching: (re, timeoutMs = 20_000) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiting.delete(check);
          reject(new Error(`stderr did not match ${re} in ${timeoutMs} ms: ${JSON.stringify(err)}`));
        }, timeoutMs);
        const check = (): void => {
          if (!re.test(err)) return;
          clearTimeout(timer);
          waiting.delete(check);
          resolve(err);
        };
        waiting.add(check);
        check();
      }),
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

/** A JSON-RPC message as the server wrote it. */
export interface Reply {
  readonly jsonrpc: string;
  readonly id?: string | number | null;
  readonly result?: Record<string, unknown>;
  readonly error?: { code: number; message: string };
}

/** The server driven line by line: every line written as given, every line read back parsed. */
export class RawSession {
  readonly replies: Reply[] = [];
  private stdout = '';
  private err = '';
  private waiters: Array<() => void> = [];
  readonly exited: Promise<number | null>;

  private constructor(private readonly proc: ChildProcessWithoutNullStreams) {
    proc.stdout.on('data', (d: Buffer) => {
      this.stdout += d.toString();
      let nl: number;
      while ((nl = this.stdout.indexOf('\n')) !== -1) {
        this.replies.push(JSON.parse(this.stdout.slice(0, nl)) as Reply);
        this.stdout = this.stdout.slice(nl + 1);
      }
      for (const w of this.waiters.splice(0)) w();
    });
    proc.stderr.on('data', (d: Buffer) => (this.err += d.toString()));
    this.exited = new Promise((resolve) => proc.on('exit', (code) => resolve(code)));
  }

  /** Starts the server and completes the handshake (initialize, then initialized). */
  static async start(args: string[]): Promise<RawSession> {
    const s = new RawSession(spawn(process.execPath, [CLI, 'mcp', ...args], { stdio: ['pipe', 'pipe', 'pipe'] }));
    s.write(JSON.stringify({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }));
    await s.reply('init');
    s.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    return s;
  }

  get stderr(): string {
    return this.err;
  }

  /** Writes `line` and its newline (a string, or bytes written as they are). */
  write(line: string | Buffer): void {
    this.proc.stdin.write(line);
    this.proc.stdin.write('\n');
  }

  /** The reply to `id`: the first one with that id (null: replies to lines without an id, in order). */
  async reply(id: string | number | null, nth = 0, timeoutMs = 15_000): Promise<Reply> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const found = this.replies.filter((r) => r.id === id)[nth];
      if (found) return found;
      const left = until - Date.now();
      if (left <= 0) throw new Error(`no reply to ${JSON.stringify(id)} within ${timeoutMs} ms; got ${JSON.stringify(this.replies.map((r) => r.id))}; stderr: ${this.err}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Ends the input, as a client closing the connection. */
  end(): void {
    this.proc.stdin.end();
  }

  kill(): void {
    this.proc.kill();
  }
}
