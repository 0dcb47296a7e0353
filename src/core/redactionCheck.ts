import { type CancellationSignal, NEVER_CANCELLED } from './cancellation';
import { REDACTION_VERSION, redact } from './distill/redact';
import type { Db } from './store/db';
import { countUnchecked, setRedactionStamps, type UncheckedText, uncheckedTexts } from './store/redactionStamps';
import { inBatches } from './workers/batches';
import type { WorkerPool } from './workers/pool';

/**
 * Redaction stamps (`distilled.clean`): whether the current rules found a secret in an exchange's verbatim text.
 * CLEAN (REDACTION_VERSION) lets a search that leaves the store show the text as it is; anything else (HOLDS_SECRET,
 * an older version's stamp, NULL) has it redacted on every read. The distill stage stamps what it distils; the index
 * run's redaction stage stamps the rest (rows distilled before schema v16, or under older rules), once: a text with a
 * secret is stamped HOLDS_SECRET so that it is not checked again on every run.
 */
export const CLEAN = REDACTION_VERSION;
/** Checked by the current rules, which found a secret: never shown unredacted. */
export const HOLDS_SECRET = `!${REDACTION_VERSION}`;
const CURRENT = [CLEAN, HOLDS_SECRET];

/** The stamp of a verbatim text: CLEAN when redacting it changes nothing. */
export function redactionStamp(verbatim: string): string {
  return redact(verbatim) === verbatim ? CLEAN : HOLDS_SECRET;
}

/** Texts read a batch at a time: a page for the threads, a few hundred characters each on average. */
const BATCH = 200;
/** On the run's own thread, a batch's characters (~15,000 a millisecond redacted: ~15 ms) before it yields. */
const MAX_BATCH_CHARS = 250_000;

/** Stores this process found every stamp of current: whatever is distilled since is stamped by the distill stage. */
const allChecked = new WeakSet<Db>();

/**
 * The index run's redaction stage: stamps every distilled exchange whose stamp is not current, a batch at a time
 * (on the threads when given a pool), cancellable between batches. Counted once per store and process, then skipped.
 * Returns how many were stamped.
 */
export async function checkRedaction(
  db: Db,
  onProgress: (p: { phase: 'redaction'; done: number; total: number }) => void = () => undefined,
  token: CancellationSignal = NEVER_CANCELLED,
  poolFor: (exchanges: number) => WorkerPool | undefined = () => undefined,
): Promise<number> {
  if (allChecked.has(db)) return 0;
  const total = await countUnchecked(db, CURRENT);
  const pool = total > 0 ? poolFor(total) : undefined;
  const stamped = await inBatches<UncheckedText, string>(
    {
      next: (afterN) => uncheckedTexts(db, CURRENT, afterN, BATCH),
      onThread: (batch, threads) => threads.run({ kind: 'redaction', texts: batch.map((e) => e.verbatim) }),
      here: stampHere,
      write: async (batch, stamps, done) => {
        await setRedactionStamps(db, batch.map((e, i) => ({ n: e.n, hash: e.hash, stamp: stamps[i]! })));
        onProgress({ phase: 'redaction', done, total });
      },
    },
    pool,
    token,
  );
  if (!token.isCancellationRequested) allChecked.add(db);
  return stamped;
}

/** On this thread: yielding every MAX_BATCH_CHARS characters, so the extension host's event loop is never held long. */
async function stampHere(batch: readonly UncheckedText[]): Promise<string[]> {
  const stamps: string[] = [];
  let chars = 0;
  for (const e of batch) {
    if (chars >= MAX_BATCH_CHARS) {
      await new Promise((resolve) => setImmediate(resolve));
      chars = 0;
    }
    stamps.push(redactionStamp(e.verbatim));
    chars += e.verbatim.length;
  }
  return stamps;
}
