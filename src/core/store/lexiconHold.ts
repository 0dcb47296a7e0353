import { TimeSlice } from '../timeSlice';
import type { Db } from './db';
import { mergeLexicon, mergeSegments } from './lexicon';
import { WrittenPostings } from './writtenPostings';

/** A write pass's segments merged into one when this many are there, before its end (HeldMerges). */
export const HELD_SEGMENTS = 32;

/**
 * A write pass's merges (Store.lexiconMergesHeld), held until it ends: a first index adds a segment a write group
 * (one transaction), and merged FANOUT at a time as they come each exchange was written ~2.7 times on the corpus
 * (1,518 exchanges in 4,090 segment rows), the merges more than half the run thread's writes. Held, the pass's
 * segments are merged into one at its end (each exchange written twice), or when HELD_SEGMENTS of them are there
 * (a large history: what a search reads while the pass runs stays a few dozen segments). Then FANOUT of a size
 * merge as always (mergeLexicon). What the lexicon holds is the same either way; only how it is cut in segments.
 */
export class HeldMerges {
  /** What the pass wrote of its segments' postings, while few: its merges take them from there, not the store. */
  readonly written = new WrittenPostings();

  private constructor(private after: number) {}

  /** Holds the merges of the segments added from now on. */
  static async begin(db: Db): Promise<HeldMerges> {
    const row = await db.get<{ id: number | null }>('SELECT max(id) AS id FROM lexicon_segments');
    return new HeldMerges(row?.id ?? 0);
  }

  /** After the pass added a segment: its segments merged into one once HELD_SEGMENTS are there. */
  async added(db: Db, slice: TimeSlice): Promise<void> {
    const ids = await this.segments(db);
    if (ids.length < HELD_SEGMENTS) return;
    this.after = (await mergeSegments(db, ids, slice, undefined, this.written)) ?? ids.at(-1)!;
    this.written.forget(ids);
  }

  /** Whether the pass added segments not merged yet. */
  async pending(db: Db): Promise<boolean> {
    return (await this.segments(db)).length > 0;
  }

  /** At the pass's end: its segments merged into one, then FANOUT of a size (mergeLexicon). Call inside a transaction. */
  async release(db: Db, slice = new TimeSlice()): Promise<void> {
    const ids = await this.segments(db);
    if (ids.length > 1) await mergeSegments(db, ids, slice, undefined, this.written);
    this.written.forget(ids);
    await mergeLexicon(db, slice);
  }

  /** The segments added since the pass began (or since its last merge), oldest first. */
  private async segments(db: Db): Promise<number[]> {
    return (await db.all<{ id: number }>('SELECT id FROM lexicon_segments WHERE id > ? ORDER BY id', [this.after])).map((r) => r.id);
  }
}
