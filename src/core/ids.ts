import { createHash } from 'node:crypto';

/** A short stable id from its parts: the same inputs always give the same id. */
export function stableId(...parts: ReadonlyArray<string | number | undefined>): string {
  const h = createHash('sha256');
  for (const p of parts) h.update(`${p ?? ''}\u0000`);
  return h.digest('hex').slice(0, 24);
}
