import { statSync } from 'node:fs';
import * as path from 'node:path';
import { adoptCl100kTable, cl100kTableBytes } from '../core/cl100kTable';
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
