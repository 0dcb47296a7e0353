import * as path from 'node:path';
import type { CancellationSignal } from '../../src/core/cancellation';
import type { Distiller, DistillInput, DistillOutcome } from '../../src/core/distill/distiller';
import type { DistilledExchange } from '../../src/core/distill/types';
import { indexWorkspace } from '../../src/core/indexer';
import { Store } from '../../src/core/store/store';
import { FIXTURES, tempDir } from './helpers';

/** A store indexed from the hand-written fixtures; `distiller: false` leaves every exchange pending. */
export async function fixtureStore(distiller?: Distiller | false): Promise<Store> {
  const store = await Store.open(path.join(tempDir('distill-'), 'd.sqlite'));
  await indexWorkspace(store, {
    discover: { workspaceRoots: [], claudeRoots: [], codexRoots: [], extraRoots: [FIXTURES], includeSubagents: true },
    segment: { minChars: 100, maxPlies: 20 },
    ...(distiller !== undefined ? { distiller } : {}),
  });
  return store;
}

/**
 * A real Distiller that answers from a function and counts what it was asked: an LLM stand-in for the
 * stage's own logic (cache, failures, backoff), which does not depend on how answers are made.
 */
export class CountingDistiller implements Distiller {
  readonly name = 'counting';
  readonly promptVersion = 'p1';
  readonly remote = false;
  calls = 0;
  readonly seen: number[] = [];

  constructor(
    readonly model: string | undefined,
    private readonly answer: (e: DistillInput, call: number) => DistillOutcome | undefined = (e) => ({
      n: e.n,
      ok: true,
      value: simpleObject(e),
    }),
  ) {}

  async distill(batch: readonly DistillInput[], _token: CancellationSignal): Promise<DistillOutcome[]> {
    this.calls++;
    const out: DistillOutcome[] = [];
    for (const e of batch) {
      this.seen.push(e.n);
      const o = this.answer(e, this.calls);
      if (o) out.push(o);
    }
    return out;
  }
}

export function simpleObject(e: DistillInput): DistilledExchange {
  return {
    exchangeCore: `Core of ${e.exchangeId.slice(0, 8)}`,
    specificContext: e.verbatim.slice(0, 10),
    rooms: [{ type: 'concept', key: 'Fixture Topic', label: 'Fixture topic', relevance: 0.7 }],
  };
}

/** One exchange to distill: `prompt`, then `body` (the rendered turns after the prompt). */
export function distillInput(prompt: string, body: string, extra: Partial<DistillInput> = {}): DistillInput {
  return {
    n: 1,
    exchangeId: 'x1',
    agent: 'claude-code',
    project: '/home/dev/shop',
    plyStart: 0,
    plyEnd: 3,
    prompt,
    verbatim: `User: ${prompt}\n\n${body}`,
    filesTouched: [],
    ...extra,
  };
}
