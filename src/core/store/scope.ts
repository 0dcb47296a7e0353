/**
 * Which rows belong to a workspace.
 * `c.project` (the folder the agent ran in) is one of `folders` or lies inside one: the workspace boundary.
 * Compared by prefix with the separator, never with LIKE (folder names hold `_` and `%`). No folders: false.
 */
export function projectWithin(folders: readonly string[]): { sql: string; params: string[] } {
  if (folders.length === 0) return { sql: '0', params: [] };
  const params: string[] = [];
  const one = folders.map((f) => {
    const root = f.replace(/[\\/]+$/, '') || f;
    const sep = /^[A-Za-z]:\\/.test(root) || (root.includes('\\') && !root.includes('/')) ? '\\' : '/';
    const prefix = root.endsWith(sep) ? root : root + sep;
    params.push(root, prefix, prefix);
    return '(c.project = ? OR substr(c.project, 1, length(?)) = ?)';
  });
  return { sql: `(${one.join(' OR ')})`, params };
}
