import type { ViewerMessage } from '../../src/viewerProtocol';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { HostMessage } from '../../src/protocol';

export const EXTENSION_ID = 'agent-recall.agent-recall';

/** The API `activate()` returns (see src/extension.ts). Declared here so the tests only depend on the contract. */
export interface AgentRecallApi {
  waitForIndexIdle(): Promise<void>;
  getIndexSummary(): Promise<
    | {
        conversations: number;
        exchanges: number;
        distilledExchanges: number;
        byAgent: Record<string, number>;
        semantic: { on: boolean; model?: string; reason?: string; fix?: string };
        lastIndexedAt?: Date;
        lastReport?: { parsed: number; unchanged: number; failed: Array<{ path: string; error: string }> };
      }
    | undefined
  >;
  getDistillerStatus(): Promise<{ configured: string; active: string; reason?: string; hasAnthropicKey: boolean; promptFound: boolean }>;
  search(query: { text: string; mode?: string; limit?: number }): Promise<{ hits: Array<{ exchangeId: string; agent: string; prompt: string; lineStart: number; lineEnd: number; parts: Array<{ signal: string }> }>; mode: string; fusion: string; semantic: boolean; notice?: string }>;
  readonly storeFile: string | undefined;
  readonly views: {
    readonly rooms: TreeProvider & { setSort(s: 'recency' | 'size'): void; setFilter(text: string): void };
    readonly fileHistory: TreeProvider & { readonly file: string | undefined };
    readonly status: TreeProvider;
  };
  fileDecoration(uri: vscode.Uri): vscode.FileDecoration | undefined;
  activeFileStatus(): string | undefined;
  reloadFileHistory(): Promise<void>;
  liveTriggers(): number;
  onIndexChange(listener: (e: { state: string; progress?: string; summary: { exchanges: number; lastIndexedAt?: Date } }) => void): vscode.Disposable;
  recallPanel(): { open: boolean; posted: HostMessage[] };
  readonly mcp: { readonly registered: boolean; launch(): { label: string; command: string; args: string[]; env: Record<string, string>; version: string } | undefined };
  exchangeViewer(): { shown: string | undefined; posted: ViewerMessage[] };
}

export interface TreeProvider {
  getChildren(node?: unknown): Promise<unknown[]>;
  getTreeItem(node: unknown): vscode.TreeItem;
}

/** The tree items a provider shows under `node`. */
export async function treeItems(p: TreeProvider, node?: unknown): Promise<Array<{ node: unknown; item: vscode.TreeItem }>> {
  return (await p.getChildren(node)).map((n) => ({ node: n, item: p.getTreeItem(n) }));
}

export function labelOf(item: vscode.TreeItem): string {
  return typeof item.label === 'string' ? item.label : (item.label?.label ?? '');
}

/** Polls `fn` until it returns a truthy value or the time is up (then returns the last value). */
export async function eventually<T>(fn: () => Promise<T> | T, timeoutMs = 10_000, everyMs = 100): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v || Date.now() > until) return v;
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export interface Fixture {
  readonly workspace: string;
  readonly claudeConfigDir: string;
  readonly codexHome: string;
  /** The Copilot Chat session log in code-server's own workspace storage, and the Gemini CLI session. */
  readonly copilotSession: string;
  readonly geminiSession: string;
  readonly clineTask: string;
  /** Cursor's chat database and OpenCode's (both WAL), written by test/host/cursorDb.mjs and opencodeDb.mjs. */
  readonly cursorDb: string;
  readonly openCodeDb: string;
  /** COPILOT_HOME, QWEN_RUNTIME_DIR and Amp's threads folder: empty at the start (live.test.ts writes into them). */
  readonly copilotHome: string;
  readonly qwenHome: string;
  readonly ampThreads: string;
  /** A legacy Kilo Code task folder and a Kiro IDE session file, both in code-server's own global storage. */
  readonly kiloTask: string;
  readonly kiroSession: string;
  /** A Trae session in a workspace storage database of code-server's own user data (rollback journal). */
  readonly traeDb: string;
  /** OPENHANDS_CONVERSATIONS_DIR, KIMI_CODE_HOME and JUNIE_HOME: empty at the start (live.test.ts writes into them). */
  readonly openHandsHome: string;
  readonly kimiHome: string;
  readonly junieHome: string;
  readonly expected: { conversations: number; exchanges: number; byAgent: Record<string, number> };
}

/** The fixture manifest written by test/host/fixture.mjs (path in AGENT_RECALL_FIXTURE). */
export function fixture(): Fixture {
  const file = process.env['AGENT_RECALL_FIXTURE'];
  if (!file) throw new Error('AGENT_RECALL_FIXTURE is not set: run the in-host tests through npm test');
  return JSON.parse(fs.readFileSync(file, 'utf8')) as Fixture;
}

export function extension(): vscode.Extension<AgentRecallApi> {
  const ext = vscode.extensions.getExtension<AgentRecallApi>(EXTENSION_ID);
  if (!ext) throw new Error(`extension ${EXTENSION_ID} is not loaded`);
  return ext;
}

export async function api(): Promise<AgentRecallApi> {
  return extension().activate();
}

/**
 * The index summary once indexing has settled with at least `minExchanges` exchanges (indexing starts in
 * the background after activation, so a first idle may come before the first run).
 */
export async function settledSummary(minExchanges: number, timeoutMs = 45_000): ReturnType<AgentRecallApi['getIndexSummary']> {
  const a = await api();
  const until = Date.now() + timeoutMs;
  for (;;) {
    await a.waitForIndexIdle();
    const s = await a.getIndexSummary();
    if ((s && s.exchanges >= minExchanges) || Date.now() > until) return s;
    await new Promise((r) => setTimeout(r, 250));
  }
}

type Results = Extract<HostMessage, { type: 'results' }>;

/** Runs the recall command with `text` and waits for the panel's answer holding a candidate of `agent`. */
export async function recallFinds(text: string, agent: string): Promise<Results['candidates'][number] | undefined> {
  const a = await api();
  await vscode.commands.executeCommand('agentRecall.recall', text);
  const results = await eventually(
    // the panel first lists the most recent exchanges (empty query): only an answer to the query counts
    () => a.recallPanel().posted.find((m): m is Results => m.type === 'results' && !m.recent && m.candidates.some((c) => c.agent === agent)),
    30_000,
  );
  return results?.candidates.find((c) => c.agent === agent);
}

/** The fixture's Claude Code session file. */
export function claudeSessionFile(): string {
  const projects = path.join(fixture().claudeConfigDir, 'projects');
  for (const dir of fs.readdirSync(projects)) {
    const f = fs.readdirSync(path.join(projects, dir)).find((n) => n.endsWith('.jsonl'));
    if (f) return path.join(projects, dir, f);
  }
  throw new Error(`no Claude session under ${projects}`);
}

/** Appends a new prompt and reply as Claude Code writes them (same session, cwd, chained uuids). */
export function appendClaudeExchange(file: string, prompt: string, reply: string): void {
  const lines = fs.readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
  const last = [...lines].reverse().find((r) => typeof r['uuid'] === 'string')!;
  const base = { isSidechain: false, userType: 'external', cwd: last['cwd'], sessionId: last['sessionId'], version: last['version'], gitBranch: 'main' };
  const now = new Date().toISOString();
  const u1 = `${Date.now().toString(16).padStart(8, '0').slice(-8)}-aaaa-4aaa-aaaa-000000000001`;
  const u2 = `${Date.now().toString(16).padStart(8, '0').slice(-8)}-aaaa-4aaa-aaaa-000000000002`;
  const user = { ...base, parentUuid: last['uuid'], type: 'user', message: { role: 'user', content: prompt }, timestamp: now, uuid: u1 };
  const assistant = {
    ...base, parentUuid: u1, type: 'assistant', timestamp: now, uuid: u2, requestId: 'req_live',
    message: { model: 'claude-sonnet-4-5', id: 'msg_live', type: 'message', role: 'assistant', content: [{ type: 'text', text: reply }], stop_reason: null, stop_sequence: null },
  };
  fs.appendFileSync(file, `${JSON.stringify(user)}\n${JSON.stringify(assistant)}\n`);
}
