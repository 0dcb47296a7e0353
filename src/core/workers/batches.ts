import type { CancellationSignal } from '../cancellation';
import { PoolBroken, type WorkerPool } from './pool';

/** One kind of batch work over stored rows: how a batch is read, worked (on a thread or here) and written. */
export interface BatchSteps<Row extends { readonly n: number }, Value> {
  /** The next batch of rows after row `afterN`, in order (empty when none is left). */
  next(afterN: number): Promise<readonly Row[]>;
  /** A value per row, worked on one of the pool's threads. */
  onThread(batch: readonly Row[], pool: WorkerPool): Promise<Value[]>;
  /** The same values, worked on this thread (no pool, or it broke). */
  here(batch: readonly Row[]): Value[] | Promise<Value[]>;
  /** Writes a batch's values; batches come in the order they were read. `written`: the rows so far, this batch's included. */
  write(batch: readonly Row[], values: Value[], written: number): Promise<void>;
}

/**
 * Works every batch `steps.next` gives, a batch per thread ahead of the writes (a thread never waits for one), and
 * writes them in order; a cancelled run takes no more batches and writes those already worked. Returns the rows
 * written.
 */
export async function inBatches<Row extends { readonly n: number }, Value>(
  steps: BatchSteps<Row, Value>,
  pool: WorkerPool | undefined,
  token: CancellationSignal,
): Promise<number> {
  const worked = async (batch: readonly Row[]): Promise<{ batch: readonly Row[]; values: Value[] }> => {
    let values: Value[] | undefined;
    if (pool) {
      try {
        values = await steps.onThread(batch, pool);
      } catch (err) {
        if (!(err instanceof PoolBroken)) throw err;
      }
    }
    values ??= await steps.here(batch);
    return { batch, values };
  };
  let written = 0;
  let afterN = -1;
  const running: Array<ReturnType<typeof worked>> = [];
  for (;;) {
    while (!token.isCancellationRequested && running.length < (pool ? pool.size + 1 : 1)) {
      const batch = await steps.next(afterN);
      if (batch.length === 0) break;
      afterN = batch[batch.length - 1]!.n;
      running.push(worked(batch));
    }
    const next = running.shift();
    if (!next) break;
    const { batch, values } = await next;
    written += batch.length;
    await steps.write(batch, values, written);
  }
  return written;
}
