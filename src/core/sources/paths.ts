import * as path from 'node:path';

/** True when `p` equals or lies below one of `roots` (case-insensitive for Windows-style paths). */
export function insideAny(p: string, roots: readonly string[]): boolean {
  return roots.some((root) => {
    const windows = /^[A-Za-z]:[\\/]/.test(p) || /^[A-Za-z]:[\\/]/.test(root);
    const lib = windows ? path.win32 : path.posix;
    const rel = lib.relative(root, p);
    return rel === '' || (!rel.startsWith('..') && !lib.isAbsolute(rel));
  });
}
