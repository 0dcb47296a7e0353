import * as path from 'node:path';

/** Kiro CLI's database (the Amazon Q Developer CLI's, renamed): `data.sqlite3` in its data folder `kiro-cli`. */
export const KIRO_DB_NAME = 'data.sqlite3';

/** The Kiro IDE's agent storage folder, under `<Kiro user data>/User/globalStorage/`. */
export const KIRO_IDE_DIR = 'kiro.kiroagent';

/** An older Kiro IDE chat: `kiro.kiroagent/<workspace hash>/<hash>.chat`. */
export function isKiroIdeChat(file: string): boolean {
  return file.endsWith('.chat') && path.basename(path.dirname(path.dirname(file))) === KIRO_IDE_DIR;
}
