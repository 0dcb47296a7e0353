import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let gc: (() => void) | undefined;

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
