import type { RecallError } from './core/errors';

/**
 * Runs a command as the process: its exit code once stdout and stderr are written out, its error as one line
 * on stderr (exit 2 for a bad argument, else 1). Shared by the command line's bundles (launcher.ts).
 */
export function runAsProcess(command: () => Promise<number>): void {
  // `list | head`: the reader left; stop quietly, as Unix tools do
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });
  command().then(exitWhenFlushed, (err: unknown) => {
    process.stderr.write(`agent-recall: ${err instanceof Error ? err.message : String(err)}\n`);
    exitWhenFlushed(isBadArgument(err) ? 2 : 1);
  });
}

/**
 * Exits once stdout and stderr are written out: to a pipe they are written asynchronously, and
 * `process.exit` at once cut `list --json | …` short. Callbacks of writes to one stream run in order.
 */
function exitWhenFlushed(code: number): void {
  process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
}

/** A RecallError's code, read by name: each bundle has its own RecallError class, so `instanceof` cannot tell. */
function isBadArgument(err: unknown): boolean {
  return err instanceof Error && err.name === 'RecallError' && (err as RecallError).code === 'bad-argument';
}
