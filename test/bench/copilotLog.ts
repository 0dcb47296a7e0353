import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { indexSource } from '../../src/core/indexer';
import { copilotLogAdapter } from '../../src/core/sources/copilot';
import { replayMutationLog } from '../../src/core/sources/copilotLog';
import { takeReplay } from '../../src/core/replays';
import { splitLines } from '../../src/core/sources/lines';
import { Store } from '../../src/core/store/store';

/**
 * The cost of one update of a Copilot Chat mutation log. After `tsc -p .`:
 *   node --expose-gc out/test/bench/copilotLog.js [--compacted 150] [--logged 50] [--result-kb 40] [--updates 5]
 * Writes a log as VS Code does: one `kind 0` holding `--compacted` requests (what a compaction leaves), then
 * `--logged` requests written as mutations (a kind 2 append of the request, kind 2 appends of its response
 * parts, a kind 1 set of its result with a `--result-kb` tool output). Indexes it once, then appends one more
 * request's entries and indexes again, `--updates` times, once with the log's replay resumed and once (a copy)
 * replayed from its first line. Prints the log's size and the median CPU time (user + system, of every
 * thread) of an update: the machine is shared, so wall-clock time is not the figure.
 */

const { values } = parseArgs({
  options: {
    compacted: { type: 'string', default: '150' },
    logged: { type: 'string', default: '50' },
    'result-kb': { type: 'string', default: '40' },
    updates: { type: 'string', default: '5' },
  },
});
const resultKb = Number(values['result-kb']);

function request(i: number): Record<string, unknown> {
  return {
    requestId: `request_${i}`,
    timestamp: 1_762_000_000_000 + i * 60_000,
    modelId: 'copilot/gpt-4.1',
    message: { text: `Request ${i}: change the harbour tide table handler so station code ${i} is looked up case-insensitively.` },
    response: [] as unknown[],
  };
}

function responseParts(i: number): unknown[] {
  return [
    { kind: 'markdownContent', value: `I read the handler for station ${i}. ` },
    { kind: 'textEditGroup', uri: { scheme: 'file', path: `/home/dev/harbour/src/station${i % 17}.ts` }, edits: [[{ range: { startLineNumber: 3, endLineNumber: 5 }, text: 'a\nb' }]] },
    { kind: 'markdownContent', value: `The lookup now lower-cases the code before it reads STATIONS; the tests for station ${i} pass.` },
  ];
}

function result(i: number): Record<string, unknown> {
  const id = `call_${i}`;
  const output = `line ${i} of the tool output, a file's content as the read tool returned it\n`.repeat(Math.ceil((resultKb * 1024) / 70));
  return {
    metadata: {
      toolCallRounds: [{ toolCalls: [{ id, name: 'read_file', arguments: JSON.stringify({ filePath: `/home/dev/harbour/src/station${i % 17}.ts` }) }] }],
      toolCallResults: { [id]: { content: [{ value: output }] } },
    },
  };
}

function whole(i: number): Record<string, unknown> {
  return { ...request(i), response: responseParts(i), result: result(i) };
}

/** The entries VS Code appends for one new request, one JSON line each. */
function mutations(i: number): string {
  const lines = [{ kind: 2, k: ['requests'], v: [request(i)] }];
  for (const part of responseParts(i)) lines.push({ kind: 2, k: ['requests', i, 'response'], v: [part] } as never);
  lines.push({ kind: 1, k: ['requests', i, 'result'], v: result(i) } as never);
  return lines.map((l) => `${JSON.stringify(l)}\n`).join('');
}

/** A full garbage collection when node runs with --expose-gc (the figures are fairer with it). */
function collect(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

function cpuMs(u: NodeJS.CpuUsage): number {
  return (u.user + u.system) / 1000;
}

async function main(): Promise<void> {
  const compacted = Number(values.compacted);
  const logged = Number(values.logged);
  const dir = mkdtempSync(path.join(tmpdir(), 'copilot-log-bench-'));
  try {
    const sessions = path.join(dir, 'workspaceStorage', 'abc', 'chatSessions');
    mkdirSync(sessions, { recursive: true });
    const state = { version: 3, sessionId: 'session-1', creationDate: 1_762_000_000_000, requests: Array.from({ length: compacted }, (_, i) => whole(i)) };
    // the same log twice: one updated with its replay resumed, one replayed whole every time
    const files = ['resumed', 'whole'].map((name) => path.join(sessions, `${name}.jsonl`));
    for (const file of files) {
      writeFileSync(file, `${JSON.stringify({ kind: 0, v: state })}\n`);
      for (let i = compacted; i < compacted + logged; i++) appendFileSync(file, mutations(i));
    }
    const [resumed, replayed] = files as [string, string];
    const store = await Store.open(path.join(dir, 's.sqlite'));
    const segment = { minChars: 100, maxPlies: 20 };
    try {
      let t = process.cpuUsage();
      for (const file of files) await indexSource(store, file, copilotLogAdapter, segment);
      console.log(`log: ${compacted} compacted + ${logged} logged requests, ${(statSync(resumed).size / 1e6).toFixed(1)} MB; first index of both ${cpuMs(process.cpuUsage(t)).toFixed(0)} ms CPU`);
      const updates = Number(values.updates);
      const times: Record<'replay' | 'resumed' | 'whole', number[]> = { replay: [], resumed: [], whole: [] };
      for (let u = 0; u < updates; u++) {
        for (const file of files) appendFileSync(file, mutations(compacted + logged + u));
        // each measure starts after a full collection: one's garbage is not charged to the next
        collect();
        t = process.cpuUsage();
        const r = await indexSource(store, resumed, copilotLogAdapter, segment);
        times.resumed.push(cpuMs(process.cpuUsage(t)));
        takeReplay(replayed, -1); // forgets the kept replay: this one is replayed from its first line
        collect();
        t = process.cpuUsage();
        const w = await indexSource(store, replayed, copilotLogAdapter, segment);
        times.whole.push(cpuMs(process.cpuUsage(t)));
        collect();
        t = process.cpuUsage();
        replayMutationLog(splitLines(readFileSync(replayed), 0, 1, { holdBackPartial: true }).lines);
        times.replay.push(cpuMs(process.cpuUsage(t)));
        if (r === 'unchanged' || w === 'unchanged') throw new Error('an update was not seen');
        if (u === 0) console.log(`one update: ${r.bytes} bytes parsed resumed, ${w.bytes} replayed whole`);
      }
      const median = (xs: number[]): string => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!.toFixed(0);
      console.log(`median CPU of ${updates} updates: read + replay of the whole log ${median(times.replay)} ms; index run with the replay resumed ${median(times.resumed)} ms, replayed whole ${median(times.whole)} ms`);
    } finally {
      await store.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

void main();
