import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';

/**
 * What a start makes the same way every time from files that do not change between runs (V8's code for a bundle,
 * the token counter's table), kept in a file so that the next start reads it instead. A kept file names the source
 * it was made from by size and modification time, and carries a SHA-1 of itself: a source rebuilt, or a file cut
 * short or damaged on disk, is told apart and not used. The data starts at a multiple of KEPT_ALIGNMENT bytes into the
 * file, so that the bytes `readKept` gives (a view of the file's own buffer) can be viewed as int32 or taken by V8 as
 * code without a copy (V8 copies code data that is not so aligned; the token table's copy was ~10 ms of a start).
 */

/** Why nothing kept was used: none kept, kept for another build of the source, damaged. */
export type NotKept = 'none' | 'stale' | 'damaged';

/** The source a kept file was made from, as `statSync` tells it. */
export interface SourceStamp {
  readonly size: number;
  readonly mtimeMs: number;
}

const MAGIC = 'agent-recall kept file 1\n';
/** Where the data may start: V8 takes code data at a pointer's alignment without copying it. */
export const KEPT_ALIGNMENT = 8;

interface Header extends SourceStamp {
  readonly sha1: string;
}

/** The kept bytes made from `source`, or why there are none. */
export function readKept(file: string, source: SourceStamp): { data: Buffer } | { why: NotKept } {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch {
    return { why: 'none' };
  }
  const headerEnd = bytes.indexOf(10, MAGIC.length);
  if (bytes.toString('latin1', 0, MAGIC.length) !== MAGIC || headerEnd < 0) return { why: 'damaged' };
  let header: Header;
  try {
    header = JSON.parse(bytes.toString('utf8', MAGIC.length, headerEnd)) as Header;
  } catch {
    return { why: 'damaged' };
  }
  if (header.size !== source.size || header.mtimeMs !== source.mtimeMs) return { why: 'stale' };
  const data = bytes.subarray(headerEnd + 1);
  if (createHash('sha1').update(data).digest('hex') !== header.sha1) return { why: 'damaged' };
  return { data };
}

/**
 * Keeps `data` made from `source`, whole or not at all (processes started together each write their own file and
 * rename it over the last). Never throws: a folder that cannot be written keeps nothing, and the next start makes
 * the data again.
 */
export function writeKept(file: string, source: SourceStamp, data: Uint8Array): void {
  const header: Header = { size: source.size, mtimeMs: source.mtimeMs, sha1: createHash('sha1').update(data).digest('hex') };
  const partial = `${file}.${process.pid}.partial`;
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    // the header's line padded with spaces (JSON allows them) so that the data starts aligned
    const line = `${MAGIC}${JSON.stringify(header)}`;
    const head = `${line.padEnd(Math.ceil((line.length + 1) / KEPT_ALIGNMENT) * KEPT_ALIGNMENT - 1)}\n`;
    writeFileSync(partial, Buffer.concat([Buffer.from(head, 'latin1'), data]));
    renameSync(partial, file);
  } catch {
    // a read-only install, a full disk: nothing kept, no partial file left where one could be written
    try {
      rmSync(partial, { force: true });
    } catch {
      // its folder is not one
    }
  }
}
