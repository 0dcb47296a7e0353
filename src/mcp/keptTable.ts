import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import * as path from 'node:path';
import { adoptCl100kTable, cl100kTableBytes } from '../core/cl100kTable';
import type { Embedder } from '../core/embed/embedder';
import { WordVectorEmbedder } from '../core/embed/wordVectorEmbedder';
import { readKept, writeKept } from '../keptFile';

/**
 * The token counter's table (the answers' budgets) as the last start of this build kept it in `dir`, taken back
 * instead of made (~20 ms of a start); `keep` writes it once this process has made it. Tied to this bundle's
 * file: a new build makes and keeps the table again.
 */
export function keptTokenTable(dir: string | undefined): { keep(): void } {
  if (!dir) return { keep: () => undefined };
  const file = path.join(dir, 'cl100k.table');
  const stamp = statSync(__filename);
  const kept = readKept(file, stamp);
  if ('data' in kept && adoptCl100kTable(kept.data)) return { keep: () => undefined };
  return { keep: () => writeKept(file, stamp, cl100kTableBytes()) };
}

/**
 * The built-in model's word table kept in `dir` the same way, read when the first embedding needs it (a search by
 * meaning, or the warm-up's) instead of made: a fresh server made it in its first calls, back to back 13-44 ms of
 * their main thread. Kept in a file named by the model's list and tied to this bundle's file (its hash).
 */
export function keepWordTable(dir: string | undefined, embedder: Embedder | undefined): void {
  if (!dir || !(embedder instanceof WordVectorEmbedder)) return;
  const file = path.join(dir, `words-${createHash('sha1').update(embedder.tableIdentity).digest('hex').slice(0, 16)}.table`);
  const stamp = statSync(__filename);
  embedder.keepTableWith({
    take: () => {
      const kept = readKept(file, stamp);
      if (!('data' in kept) || kept.data.byteLength % 4 !== 0) return undefined;
      const { buffer, byteOffset, byteLength } = kept.data;
      return byteOffset % 4 === 0 ? new Int32Array(buffer, byteOffset, byteLength / 4) : new Int32Array(new Uint8Array(kept.data).buffer);
    },
    // written once the answer that needed the table is on its way: once per build
    keep: (slots) => void setImmediate(() => writeKept(file, stamp, new Uint8Array(slots.buffer, slots.byteOffset, slots.byteLength))),
  });
}
