import * as path from 'node:path';
import { RecallError } from './errors';
import type { AgentKind } from './model';
import { rawFileText } from './rawFile';
import { obj, shortenStringsPast } from './sources/adapter';
import { readCursorComposers } from './sources/cursorDb';
import { arraySpans } from './sources/jsonSpans';
import { isKiloDb } from './sources/kiloPaths';
import { readKiroConversation } from './sources/kiroDb';
import { isKiroIdeSession, readKiroIdeSession } from './sources/kiroIde';
import { KIRO_DB_NAME } from './sources/kiroPaths';
import { openCodeSessionRecords } from './sources/opencode';
import { readConversation } from './sources/openHands';
import { readTraeSession } from './sources/traeDb';
import { readWarpConversation } from './sources/warp';
import { readZedThread } from './sources/zedDb';
import { readSideFile, splitLines } from './sources/lines';
import { ADAPTERS } from './sources/registry';
import { visible } from './visible';

/**
 * "Open raw": an exchange's source as text, with the exchange's lines to select, for a read-only document
 * that makes nothing in it a link or a command. Where the file's lines place the exchange (JSONL, Markdown
 * exports, pretty-printed JSON) it is the file's text (rawFile.ts); where they do not, the source's records
 * pretty-printed: a one-line JSON document (Cline's history: every exchange is on line 1), Cursor's database
 * rows, an OpenCode or Kilo Code session (its session, message and part files, or its database rows), a Zed
 * thread's row, a Kiro CLI conversation's row or a Kiro IDE session with its execution logs. Hidden
 * characters are written out (visible.ts): a bidirectional control cannot reorder what is shown, and a line
 * or paragraph separator neither breaks a line the file does not break nor makes the editor offer to remove it.
 */

export interface RawView {
  /** The text to show: the file's, or its records pretty-printed under a comment line naming where they come from. */
  readonly text: string;
  /** 1-based inclusive lines of the exchange's records in `text`. */
  readonly lineStart: number;
  readonly lineEnd: number;
}

/** What the raw view needs of an exchange: where it was read and its locator there. */
export interface RawLocator {
  readonly agent: AgentKind;
  readonly file: string;
  readonly sessionId: string;
  readonly lineStart: number;
  readonly lineEnd: number;
  readonly byteStart: number;
  /** Where the source's next exchange (kept or dropped) starts: the exchange's records end before it. */
  readonly nextByteStart?: number;
}

/** The raw view of an exchange; a clear error when its source is gone. */
export async function rawView(e: RawLocator): Promise<RawView> {
  const positioned = POSITIONED[e.agent];
  try {
    const view = positioned && (positioned.handles?.(e.file) ?? true)
      ? await positionedView(e, positioned)
      : ((await recordsView(e)) ?? (await rawFileText(e)));
    return { ...view, text: visible(view.text, { lines: true }) };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    throw new RecallError('source-unreadable', `The transcript ${e.file} no longer exists; its exchanges stay in the index.`, { cause: err });
  }
}

/** A one-line JSON document's records, pretty-printed; undefined when the file's own lines place the exchange. */
async function recordsView(e: RawLocator): Promise<RawView | undefined> {
  const adapter = ADAPTERS.find((a) => a.agent === e.agent && a.recordsPath && a.matchesPath(e.file));
  if (!adapter?.recordsPath) return undefined;
  const lines = splitLines(Buffer.from(await readSideFile(e.file)), 0, 1, { holdBackPartial: false, shortenStringsPast: shortenStringsPast(adapter) }).lines;
  if (lines.length !== 1) return undefined; // pretty-printed: the file's own lines place the exchange
  let doc: unknown;
  try {
    doc = JSON.parse(lines[0]!.text);
  } catch {
    return undefined; // being rewritten: the file itself is the best there is
  }
  const records = adapter.recordsPath.reduce<unknown>((v, key) => obj(v)?.[key], doc);
  if (!Array.isArray(records)) return undefined;
  const spans = arraySpans(lines, adapter.recordsPath);
  const end = e.nextByteStart ?? Infinity;
  const chosen = new Set(spans.map((s, i) => (s.offset >= e.byteStart && s.offset < end ? i : -1)).filter((i) => i >= 0));
  if (chosen.size === 0) return undefined;
  const where = adapter.recordsPath.length ? `the \`${adapter.recordsPath.join('.')}\` records` : 'the records';
  return build(
    `// ${where} of ${path.basename(e.file)} (one line on disk), pretty-printed, read-only: ${e.file}`,
    records.map((r, i) => ({ value: r, chosen: chosen.has(i) })),
  );
}

/**
 * Sources whose "lines" are positions among a conversation's records (a database's rows, a session's files):
 * how to read those records again, what to call them and what to say when the conversation is gone.
 */
interface PositionedSource {
  /** Whether the agent's file is of this kind (an agent with other files whose lines place an exchange); all when absent. */
  handles?(file: string): boolean;
  /** The conversation's records in order, `header` of them before position 1; undefined when it is gone. */
  read(e: RawLocator): Promise<{ readonly records: readonly unknown[]; readonly header: number } | undefined>;
  describe(e: RawLocator): string;
  gone(e: RawLocator): string;
}

const POSITIONED: Partial<Record<AgentKind, PositionedSource>> = {
  // the composer, then its bubbles as the database holds them (the fields Agent Recall reads)
  cursor: {
    read: async (e) => {
      const [c] = await readCursorComposers(e.file, [e.sessionId]);
      if (!c) return undefined;
      const composer = { key: `composerData:${e.sessionId}`, ...(c.project ? { project: c.project } : {}), composer: c.composer };
      const bubbles = c.bubbles.map((b, i) => ({ key: `bubbleId:${e.sessionId}:${b.bubbleId}`, position: i + 1, bubble: b.bubble ?? (b.damaged ? '(damaged JSON)' : '(missing)') }));
      return { records: [composer, ...bubbles], header: 1 };
    },
    describe: (e) => `Cursor conversation ${e.sessionId}: its composerData and bubble records (the fields Agent Recall reads)`,
    gone: (e) => `The conversation ${e.sessionId} is no longer in Cursor's database ${e.file}`,
  },
  // the session, then each message followed by its parts
  opencode: {
    read: async (e) => {
      const records = await openCodeSessionRecords(e.file, e.sessionId);
      return records.length ? { records, header: 0 } : undefined;
    },
    describe: (e) => `OpenCode session ${e.sessionId}: its session, message and part records (as Agent Recall reads them)`,
    gone: (e) => `The OpenCode session ${e.sessionId} is no longer in ${e.file}`,
  },
  // Kilo Code's OpenCode-based storage; its legacy task histories are one-line documents (below)
  kilo: {
    handles: (file) => isKiloDb(file) || /[\\/]kilo[\\/]storage[\\/]session[\\/]/.test(file),
    read: async (e) => {
      const records = await openCodeSessionRecords(e.file, e.sessionId);
      return records.length ? { records, header: 0 } : undefined;
    },
    describe: (e) => `Kilo Code session ${e.sessionId}: its session, message and part records (as Agent Recall reads them)`,
    gone: (e) => `The Kilo Code session ${e.sessionId} is no longer in ${e.file}`,
  },
  // Kiro CLI's database: the conversation's newest row, then each entry of its history; its JSONL sessions place
  // exchanges by their lines
  kiro: {
    handles: (file) => path.basename(file) === KIRO_DB_NAME || isKiroIdeSession(file),
    read: async (e) => {
      const records = isKiroIdeSession(e.file) ? await readKiroIdeSession(e.file) : await readKiroConversation(e.file, e.sessionId);
      return records.length ? { records, header: 0 } : undefined;
    },
    describe: (e) =>
      isKiroIdeSession(e.file)
        ? `Kiro session ${e.sessionId}: the session and its history entries with their executions (as Agent Recall reads them)`
        : `Kiro CLI conversation ${e.sessionId}: its newest row and the entries of its history (as Agent Recall reads them)`,
    gone: (e) => `The Kiro CLI conversation ${e.sessionId} is no longer in ${e.file}`,
  },
  // the thread's row, then each element of its messages, decompressed
  zed: {
    read: async (e) => {
      const records = await readZedThread(e.file, e.sessionId);
      return records.length ? { records, header: 0 } : undefined;
    },
    describe: (e) => `Zed thread ${e.sessionId}: its row and its messages, decompressed (as Agent Recall reads them)`,
    gone: (e) => `The Zed thread ${e.sessionId} is no longer in ${e.file}`,
  },
  // the session's entry in the storage value, then each of its messages
  trae: {
    read: async (e) => {
      const records = await readTraeSession(e.file, e.sessionId);
      return records.length ? { records, header: 0 } : undefined;
    },
    describe: (e) => `Trae session ${e.sessionId}: its entry and its messages (as Agent Recall reads them)`,
    gone: (e) => `The Trae session ${e.sessionId} is no longer in ${e.file}`,
  },
  // the conversation's state, then each of its event files
  openhands: {
    read: async (e) => {
      const records = await readConversation(e.file).catch(() => []);
      return records.length > 1 ? { records, header: 0 } : undefined;
    },
    describe: (e) => `OpenHands conversation ${e.sessionId}: its state and its events (as Agent Recall reads them)`,
    gone: (e) => `The OpenHands conversation ${e.sessionId} is no longer in ${path.dirname(e.file)}`,
  },
  // the conversation, then each of its prompts' rows (Warp keeps no answers there)
  warp: {
    read: async (e) => {
      const records = await readWarpConversation(e.file, e.sessionId);
      return records.length ? { records, header: 0 } : undefined;
    },
    describe: (e) => `Warp conversation ${e.sessionId}: its prompts' rows (as Agent Recall reads them)`,
    gone: (e) => `The Warp conversation ${e.sessionId} is no longer in ${e.file}`,
  },
};

/**
 * A conversation's records with the exchange's chosen by position; the first record (Cursor's composer,
 * OpenCode's session) when the agent has since removed them.
 */
async function positionedView(e: RawLocator, source: PositionedSource): Promise<RawView> {
  const read = await source.read(e);
  if (!read) throw new RecallError('source-unreadable', `${source.gone(e)}; its exchanges stay in the index.`);
  const inExchange = (i: number): boolean => i >= read.header && i - read.header + 1 >= e.lineStart && i - read.header + 1 <= e.lineEnd;
  const gone = !read.records.some((_, i) => inExchange(i));
  return build(
    `// ${source.describe(e)}, read-only: ${e.file}`,
    read.records.map((value, i) => ({ value, chosen: inExchange(i) || (gone && i === 0) })),
  )!;
}

/** The records as one JSON array under a comment line; the chosen ones' first to last line. */
function build(comment: string, records: ReadonlyArray<{ value: unknown; chosen: boolean }>): RawView | undefined {
  const out = [comment, '['];
  let lineStart = 0;
  let lineEnd = 0;
  for (const [i, r] of records.entries()) {
    const pretty = `${JSON.stringify(r.value, null, 2)}${i < records.length - 1 ? ',' : ''}`.split('\n').map((l) => `  ${l}`);
    if (r.chosen) {
      if (!lineStart) lineStart = out.length + 1;
      lineEnd = out.length + pretty.length;
    }
    out.push(...pretty);
  }
  out.push(']');
  return lineStart ? { text: `${out.join('\n')}\n`, lineStart, lineEnd } : undefined;
}
