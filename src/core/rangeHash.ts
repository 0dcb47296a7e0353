/** FNV-1a over the UTF-16 code units of s[from, to): a hash table's slot for a piece of a string, found in place. */
export function rangeHash(s: string, from: number, to: number): number {
  let h = 0x811c9dc5;
  for (let i = from; i < to; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}
