import * as path from 'node:path';

/**
 * Kilo Code's database since it was rebuilt on OpenCode's core (read as OpenCode's, opencode.ts): in its data
 * folder `kilo` (`$XDG_DATA_HOME/kilo`, by default `~/.local/share/kilo` on every platform), `kilo.db` on the
 * released channels, `kilo-<channel>.db` on the others, or `opencode-<channel>.db` that a development channel
 * wrote before the rename; `KILO_DB` can name another file (its name is then `kilo*.db` to be known as Kilo's).
 */
export const KILO_DB_RE = /^(?:kilo|opencode)(?:-[\w.-]+)?\.db$/;

export function isKiloDb(file: string): boolean {
  const name = path.basename(file);
  return KILO_DB_RE.test(name) && (path.basename(path.dirname(file)) === 'kilo' || name.startsWith('kilo'));
}
