import type { SourceLine } from './lines';

/**
 * The record ids a transcript has shown, for readers that skip a record written again under an id it already had
 * (Claude Code's and Qwen Code's resumed sessions replay earlier records with their uuids). A parse resumed mid-file
 * starts from the ids of the lines before its resume point (ParseInput.seenIds), so a copy whose first record lies
 * before that point is skipped as a read of the whole file skips it; `before` hands on the ids for the next resume.
 */
export class RecordIds {
  private readonly seen: Set<string>;
  /** The ids first seen in this parse, by the offset of their line, in order. */
  private readonly read: Array<{ readonly offset: number; readonly id: string }> = [];

  constructor(private readonly carried: readonly string[] = []) {
    this.seen = new Set(carried);
  }

  /** True when `id` is new to the file (it is remembered); false for a copy of a record read before. */
  firstRead(id: string, line: SourceLine): boolean {
    if (this.seen.has(id)) return false;
    this.seen.add(id);
    this.read.push({ offset: line.offset, id });
    return true;
  }

  has(id: string): boolean {
    return this.seen.has(id);
  }

  /** The ids of the records on lines before `offset` (a line's start): what a parse resumed there starts from. */
  before(offset: number): string[] {
    const out = [...this.carried];
    for (const r of this.read) if (r.offset < offset) out.push(r.id);
    return out;
  }
}
