import type { RecordedTouch } from '../model';
import { arr, obj, str } from './adapter';

const READS = new Set(['read', 'fs_read']);
const WRITES = new Set(['write', 'fs_write']);
const CREATE_COMMANDS = new Set(['create']);

/**
 * The files Kiro CLI's tools (and those of the Amazon Q Developer CLI it was renamed from) act on, from their
 * input: `read` / `fs_read` (`path`, or `operations[{path, start_line, end_line}]`, lines 1-based, a negative end
 * counting from the file's end) and `write` / `fs_write` (`path`, `command` `create` writes, `strReplace` /
 * `str_replace` / `insert` / `append` edit). Shell and AWS tools name files only in their commands (files.ts
 * finds those).
 */
export function kiroToolTouches(name: string, input: unknown): RecordedTouch[] {
  const args = obj(input);
  if (!args) return [];
  if (READS.has(name)) {
    const operations = arr(args['operations']).map(obj).filter((o) => o !== undefined);
    return (operations.length ? operations : [args]).flatMap((op) => {
      const file = str(op['path']);
      if (!file) return [];
      const start = op['start_line'];
      const end = op['end_line'];
      const lines = typeof start === 'number' && typeof end === 'number' && start > 0 && end >= start ? [{ start, end }] : undefined;
      return [{ path: file, how: 'read' as const, ...(lines ? { lines } : {}) }];
    });
  }
  if (WRITES.has(name)) {
    const file = str(args['path']);
    if (!file) return [];
    return [{ path: file, how: CREATE_COMMANDS.has(str(args['command']) ?? '') ? 'write' : 'edit' }];
  }
  return [];
}
