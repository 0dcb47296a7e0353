import { parentPort } from 'node:worker_threads';
import { distillOfflineBatch } from '../distill/stage';
import { type EncodedSource, encodeSource, prepareSource } from '../prepareSource';
import { redactionStamp } from '../redactionCheck';
import { isSameBytes, readSource } from '../sourceRead';
import { ADAPTERS } from '../sources/registry';
import { countTokens } from '../tokens';
import type { IndexTask, PostedTask, WorkerReply } from './tasks';

/**
 * An index worker thread (pool.ts): each task answered by its id as it ends (two sources to prepare may be in hand at
 * once: one read while the other is parsed). What it runs is what the indexer runs
 * on its own thread for a small change: the same read, parse, segment and distill functions, through the
 * adapters of the registry, so a format parses the same wherever it runs.
 */
const port = parentPort;
if (!port) throw new Error('indexWorker.ts runs as a worker thread');

port.on('message', ({ id, task }: PostedTask) => {
  run(task).then(
    // a prepared source's bytes move to the run's thread (transferred): no copy, and no objects made on arrival
    (result) => port.postMessage({ id, ok: true, result } satisfies WorkerReply, isEncoded(result) ? [result.encoded.buffer as ArrayBuffer] : []),
    (err: unknown) => port.postMessage({ id, ok: false, error: err instanceof Error ? err.message : String(err) } satisfies WorkerReply),
  );
});

async function run(task: IndexTask): Promise<unknown> {
  switch (task.kind) {
    case 'prepare': {
      const adapter = ADAPTERS[task.adapter];
      if (!adapter) throw new Error(`no adapter ${task.adapter}`);
      const read = task.read ?? (await readSource(task.file, task.prev, adapter, task.project, task.within));
      if (read === 'unchanged' || isSameBytes(read)) return read;
      return encodeSource(prepareSource(task.file, adapter, task.segment, read, { project: task.project, within: task.within, keepReplay: false }));
    }
    case 'distill': {
      const count = new Set(task.count);
      const tokens = task.batch.filter((e) => count.has(e.n)).map((e) => ({ n: e.n, id: e.exchangeId, tokens: countTokens(e.verbatim) }));
      return { distilled: await distillOfflineBatch(task.batch), tokens };
    }
    case 'count':
      return task.texts.map(countTokens);
    case 'redaction':
      return task.texts.map(redactionStamp);
  }
}

function isEncoded(result: unknown): result is EncodedSource {
  return typeof result === 'object' && result !== null && 'encoded' in result;
}
