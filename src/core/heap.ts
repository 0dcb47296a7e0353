import { runInNewContext } from 'node:vm';

let gc: (() => void) | undefined;

/**
 * V8's flags, set now. node:v8 is required when first used (~4 ms of a start): only the processes that set a flag
 * load it (the command line's index runs, and the MCP server's launcher: processFlags.ts).
 */
export function setFlagsFromString(flags: string): void {
  (require('node:v8') as typeof import('node:v8')).setFlagsFromString(flags);
}

/**
 * A full collection of this thread's heap now. V8 gives `gc()` only to a context made while `--expose-gc` is set:
 * one is made for it and the flag unset again, so no other context (the extension host's other extensions) has it.
 */
export function collectGarbage(): void {
  if (!gc) {
    setFlagsFromString('--expose-gc');
    try {
      gc = runInNewContext('gc') as () => void;
    } finally {
      setFlagsFromString('--no-expose-gc');
    }
  }
  gc();
}

/**
 * Every heap of this process grows by at most half of what was live after its last full collection before V8
 * collects it again. Left to choose, V8 lets a heap whose limit is far (an index run's thread: gigabytes) grow to
 * up to four times that: a first index of 1 GB of transcripts held ~40 MB live in that thread and 186 MB of heap,
 * the rest garbage of the writes and the lexicon's merges. For a process of our own (the command line), not the
 * extension host: the flag is the whole process's.
 */
export function keepHeapsSmall(): void {
  setFlagsFromString('--heap-growing-percent=50');
}
