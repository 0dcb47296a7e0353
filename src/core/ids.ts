import { createHash } from 'node:crypto';

/** A short stable id from its parts: the same inputs always give the same id. */
export function stableId(...parts: ReadonlyArray<string | number | undefined>): string {
  const h = createHash('sha256');
  // each part, then its separator: the bytes of `${part}\u0000` without the string made of them
  for (const p of parts) h.update(p === undefined ? '' : String(p)).update('\u0000');
  return h.digest('hex').slice(0, 24);
}
