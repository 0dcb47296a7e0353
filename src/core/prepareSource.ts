import type { ConversationMeta, Exchange } from './model';
import { exchangeHash } from './exchangeHash';
import { indexText } from './indexText';
import { keepReplay } from './replays';
import { conversationKey, type DroppedExchange, segmentConversation, type SegmentOptions } from './segment';
import type { SourceAdapter } from './sources/adapter';
import { insideAny } from './sources/paths';
import { bytesRead, linesHash, type SourceRead } from './sourceRead';
import type { ConversationRecord, CountedText, ParseWrite, WrittenExchange } from './store/store';
import type { RecordGroups, SourceState } from './store/rows';

/** A source parsed and segmented, ready to be written. */
export interface PreparedSource {
  readonly write: ParseWrite;
  readonly bytes: number;
}

/**
 * A prepared source as an index worker posts it: its structured-clone bytes (V8's serializer), transferred, not cloned.
 * Posted as objects, a source was made on the run's thread as its message arrived and waited there, through its young
 * collections, until its write group was written: most of what that thread's collector copied in the parse stage
 * (issue 41: its holds of the loop). As bytes it waits off the heap, and is made only when its group is written.
 */
export interface EncodedSource {
  readonly encoded: Uint8Array;
  readonly bytes: number;
}

/** A worker's prepared source as bytes to transfer (its buffer is the message's to move: nothing else holds it). */
export function encodeSource(prepared: PreparedSource): EncodedSource {
  // V8's own serializer, not node's default one: that one reads a typed array (an index text's counts) back as a
  // view into the bytes, which would keep them all alive; this one makes each its own copy, as a message does
  const serializer = new (v8().Serializer)();
  serializer.writeHeader();
  serializer.writeValue(prepared.write);
  return { encoded: serializer.releaseBuffer(), bytes: prepared.bytes };
}

/**
 * The source to write, made from its bytes (the same value a message would have made). Its bytes are let go at once
 * (moved to a buffer dropped young): a buffer that waited for its group outlived its young collections, and one in
 * the old generation is freed only by a full collection, which V8 then started for the bytes alone (a 250 MB
 * history: 17 full collections of this thread where it made 6).
 */
export function decodeSource(source: PreparedSource | EncodedSource): PreparedSource {
  if ('write' in source) return source;
  const deserializer = new (v8().Deserializer)(source.encoded);
  deserializer.readHeader();
  const write = deserializer.readValue() as ParseWrite;
  const bytes = source.encoded.buffer as ArrayBuffer;
  structuredClone(bytes, { transfer: [bytes] });
  return { write, bytes: source.bytes };
}

/** node:v8, required when first used: the modules that import this one do not load it for nothing (~4 ms of a start). */
function v8(): typeof import('node:v8') {
  return require('node:v8') as typeof import('node:v8');
}

export interface PrepareOptions {
  /**
   * What discovery found beside the records (Copilot's workspace.json, Gemini's project root), for formats whose
   * records name none.
   */
  readonly project?: string | undefined;
  /** A file of many workspaces' sessions: only conversations inside these folders are kept. */
  readonly within?: readonly string[] | undefined;
  /**
   * Keep a replayed log's state for its next change (replays.ts): in the thread that will parse that change. An
   * index worker does not (its memory ends with the run); that log is replayed whole once more.
   */
  readonly keepReplay?: boolean;
}

/**
 * Turns what was read of one source into the rows to write; writes nothing. Each exchange's index text
 * (indexText.ts) and content hash (exchangeHash.ts) are computed here too, where the exchange is in hand: in an index
 * worker they cost the thread that writes nothing. An exchange's messages are left behind (the store keeps its rendering). Its token count waits
 * for the stages after it is searchable (indexer.ts).
 */
export function prepareSource(file: string, adapter: SourceAdapter, segment: SegmentOptions, read: SourceRead, options: PrepareOptions = {}): PreparedSource {
  const { project, within } = options;
  const { st, resumed, fromOffset, fromLine, chunk } = read;
  const full = resumed === undefined && (read.groups?.full ?? true);
  const resume = resumed?.resumeMeta;
  const seenIds = resumed?.seenIds;
  const parsed = adapter.parse({
    file,
    lines: chunk.lines,
    ...(resume ? { resume } : {}),
    ...(seenIds ? { seenIds } : {}),
    ...(read.side ? { side: read.side } : {}),
    ...(read.replay !== undefined ? { replay: read.replay } : {}),
  });
  // kept for the next change: it is used only if what is stored then ends where this replay does
  if (parsed.replay !== undefined && (options.keepReplay ?? true)) keepReplay(file, chunk.endOffset, parsed.replay);
  const { skipped } = parsed;
  // a file of many workspaces' sessions keeps those of this workspace, each by the project it names
  const conversations = within ? parsed.conversations.filter((c) => c.meta.project !== undefined && insideAny(c.meta.project, within)) : parsed.conversations;

  const exchanges: WrittenExchange[] = [];
  const counted: CountedText[] = [];
  const dropped: DroppedExchange[] = [];
  const records: ConversationRecord[] = [];
  const fromPly = resumed?.resumePly ?? 0;
  let resumeAt = { offset: fromOffset, line: fromLine, ply: fromPly };
  let resumeMeta: ConversationMeta | undefined = resume;
  const located = adapter.projectOfPath?.(file) ?? project;
  for (const [i, conv] of conversations.entries()) {
    if (conv.meta.project === undefined && located !== undefined) conv.meta = { ...conv.meta, project: located };
    // only the first conversation can be the one that was open at the resume point
    const seg = segmentConversation(conv, segment, i === 0 && resume ? fromPly : 0);
    for (const e of seg.exchanges) {
      exchanges.push(withoutMessages(e));
      counted.push({ index: indexText(e.prompt, e.verbatim), hash: exchangeHash({ ...e, project: conv.meta.project }) });
    }
    dropped.push(...seg.dropped);
    records.push({ key: conversationKey(conv), meta: conv.meta });
    resumeMeta = conv.meta;
    const last = seg.lastSegmentStart;
    // the conversation open at the resume point still has one segment: the next parse starts where this one did
    if (!(i === 0 && last?.first)) resumeAt = last ?? { offset: chunk.endOffset, line: chunk.nextLine, ply: 0 };
  }

  const state: SourceState = {
    path: file,
    agent: adapter.agent,
    size: st.size,
    mtimeMs: Math.floor(st.mtimeMs),
    headHash: read.headHash,
    anchorHash: read.anchorHash,
    parsedOffset: chunk.endOffset,
    nextLine: chunk.nextLine,
    resumeOffset: resumeAt.offset,
    resumeLine: resumeAt.line,
    resumePly: resumeAt.ply,
    ...(resumeMeta ? { resumeMeta } : {}),
    // the ids the next parse, resumed at resumeAt, starts from
    ...(parsed.idsBefore ? { seenIds: parsed.idsBefore(resumeAt.offset) } : {}),
    pendingPartial: chunk.heldBackPartial,
    ...(read.groups ? { recordGroups: withConversations(read.groups.entries, records) } : {}),
    ...(read.fileHash !== undefined ? { fileHash: read.fileHash } : resumes(adapter, read) ? { fileHash: linesHash(resumeAt.offset, chunk.lines, { project, within }) } : {}),
  };
  const replaced = read.groups && !full ? { replaced: read.groups.replaced } : {};
  return {
    write: { state, full, fromOffset, fromLine, conversations: records, exchanges, counted, dropped, skipped, ...replaced },
    bytes: bytesRead(read),
  };
}

/** A log read from its resume point next time (sourceRead.ts canResume): its lines from there are hashed (linesHash). */
function resumes(adapter: SourceAdapter, read: SourceRead): boolean {
  return adapter.lineFormat === 'jsonl' && !adapter.replaysLog && !adapter.readRecords && read.side === undefined && read.groups === undefined;
}

/** A database's conversations, each naming the conversation row it wrote (a group's id is its session id). */
function withConversations(entries: RecordGroups, records: readonly ConversationRecord[]): RecordGroups {
  const keyOf = new Map(records.map((r) => [r.meta.sessionId, r.key]));
  return Object.fromEntries(
    Object.entries(entries).map(([id, g]) => {
      const conversation = g.conversation ?? keyOf.get(id);
      return [id, conversation ? { ...g, conversation } : g];
    }),
  );
}

function withoutMessages(e: Exchange): WrittenExchange {
  const { messages: _messages, ...written } = e;
  return written;
}
