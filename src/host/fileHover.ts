import * as path from 'node:path';
import * as vscode from 'vscode';
import { escapeInline } from '../core/exchangeMarkdown';
import { headline, NARROW_HEADLINE, touchedPhrase } from '../core/format';
import type { FileHistoryEntry } from '../core/memory';
import { relativeDate } from '../core/time';
import { visible } from '../core/visible';
import { type FileHistoryIndex, storedPathOf, touchedText } from './fileHistoryIndex';
import { AGENT_NAMES } from '../core/model';

const PATH_TEXT = /[\w@~.\-/\\]+\.\w+/g;
const HOVER_LIMIT = 8;

/**
 * Hovers: on text naming a touched file, the exchanges that touched it; on lines an exchange edited (when
 * the transcript recorded the range), the exchange that made the edit. Links open the exchange viewer.
 */
export class FileHover implements vscode.HoverProvider {
  constructor(private readonly files: FileHistoryIndex) {}

  async provideHover(doc: vscode.TextDocument, pos: vscode.Position, token: vscode.CancellationToken): Promise<vscode.Hover | undefined> {
    await this.files.ready();
    const parts: vscode.MarkdownString[] = [];
    let range: vscode.Range | undefined;
    const named = this.pathAt(doc, pos);
    if (named) {
      const entries = await this.files.entries(named.path, HOVER_LIMIT);
      if (token.isCancellationRequested) return undefined;
      const c = this.files.countOf(named.path);
      const md = trusted(`**Agent Recall:** \`${escapeCode(visible(named.path))}\` — ${escapeInline(c ? touchedText(c) : 'touched by past exchanges')}\n\n`);
      for (const e of entries) md.appendMarkdown(`${entryLine(e)}\n`);
      parts.push(md);
      range = named.range;
    }
    const own = storedPathOf(doc.uri);
    if (own && this.files.countOf(own)) {
      const line = pos.line + 1;
      const edits = (await this.files.entries(own, 200)).filter((e) => e.how !== 'mention' && e.how !== 'read' && e.lines?.some((r) => r.start <= line && line <= r.end));
      if (token.isCancellationRequested) return undefined;
      if (edits.length) {
        const md = trusted(`**Agent Recall:** line ${line} was edited in\n\n`);
        for (const e of edits.slice(0, HOVER_LIMIT)) md.appendMarkdown(`${entryLine(e)}\n`);
        parts.push(md);
      }
    }
    return parts.length ? new vscode.Hover(parts, range) : undefined;
  }

  private pathAt(doc: vscode.TextDocument, pos: vscode.Position): { path: string; range: vscode.Range } | undefined {
    const text = doc.lineAt(pos.line).text;
    for (const m of text.matchAll(PATH_TEXT)) {
      const start = m.index ?? 0;
      if (pos.character < start || pos.character > start + m[0].length) continue;
      const dir = doc.uri.scheme === 'file' ? path.dirname(doc.uri.fsPath) : undefined;
      const found = this.files.match(m[0].replace(/\\/g, '/'), dir);
      if (found) return { path: found, range: new vscode.Range(pos.line, start, pos.line, start + m[0].length) };
    }
    return undefined;
  }
}

function trusted(text: string): vscode.MarkdownString {
  const md = new vscode.MarkdownString(text);
  md.isTrusted = { enabledCommands: ['agentRecall.openExchange'] };
  md.supportHtml = false;
  return md;
}

function escapeCode(s: string): string {
  return s.replace(/`/g, "'");
}

/** One hover line: a command link to the exchange with its headline (escaped), date, agent and how. */
export function entryLine(e: FileHistoryEntry): string {
  const args = encodeURIComponent(JSON.stringify([e.exchangeId]));
  return `- [${escapeInline(headline(e, NARROW_HEADLINE))}](command:agentRecall.openExchange?${args} "Open the verbatim exchange") — ${relativeDate(e.startedAt)} · ${AGENT_NAMES[e.agent]} · ${touchedPhrase(e.how, e.lines)}`;
}
