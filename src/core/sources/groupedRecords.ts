import type { Conversation, Message, SkipReason } from '../model';
import { obj, type ParseInput, type ParseOutput, parseJsonLine, SkipCounter } from './adapter';
import { hasContent } from './message';

type JsonRecord = Record<string, unknown>;

/** Where a record's messages are: its position in its conversation (1 is the header), and its offset. */
export type GroupSpan = { line: number; lineEnd: number; offset: number };

/** How one database's records become conversations (see parseRecordGroups). */
export interface GroupedRecords<G extends { readonly conversation: Conversation }> {
  /** The key of the record that opens a conversation: `{[header]: {...}}`. */
  readonly header: string;
  /** The conversation a header opens (with what its records need to know of it). */
  open(header: JsonRecord): G;
  /** A record's messages in its conversation, or why it is skipped. */
  item(rec: JsonRecord, group: G, span: GroupSpan): readonly Message[] | SkipReason;
}

/**
 * The parse of a database read conversation by conversation (RecordGroupRead): a header record opens each conversation
 * and the records after it are its own, "lines" counted from its header. A header marked `damaged` (a row that could
 * not be read) is counted and so are the records after it; the other conversations go on.
 */
export function parseRecordGroups<G extends { readonly conversation: Conversation }>(input: ParseInput, how: GroupedRecords<G>): ParseOutput {
  const skips = new SkipCounter();
  const conversations: Conversation[] = [];
  let current: { group: G; firstLine: number } | undefined;
  for (const line of input.lines) {
    const rec = parseJsonLine(line, skips);
    if (!rec) continue;
    const header = obj(rec[how.header]);
    if (header) {
      current = undefined;
      if (rec['damaged'] !== undefined) skips.add('malformed-json', line.line);
      else conversations.push((current = { group: how.open(header), firstLine: line.line }).group.conversation);
      continue;
    }
    if (!current) {
      skips.add('unknown-record', line.line);
      continue;
    }
    const position = line.line - current.firstLine + 1;
    const made = how.item(rec, current.group, { line: position, lineEnd: position, offset: line.offset });
    if (typeof made === 'string') skips.add(made, line.line);
    else current.group.conversation.messages.push(...made.filter(hasContent));
  }
  return { conversations: conversations.filter((c) => c.messages.length > 0), skipped: skips.lines };
}
