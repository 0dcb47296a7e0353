import type { Embedder } from '../embed/embedder';
import type { SearchReads } from '../store/searchReads';
import { VECTOR_TABLES } from '../store/vectorStore';
import { lexicalFallback, modeSignals, type SignalSpec, signalName } from './modes';
import type { Layer, ModeName, WordsOnlyReason } from './types';

/** The signals a search runs, and what was given up (for `notice`; `wordsOnly`: the first reason). */
export interface SearchPlan {
  readonly specs: readonly SignalSpec[];
  readonly notice?: string;
  readonly wordsOnly?: WordsOnlyReason;
}

/** Why a layer's vectors cannot be used now: the reason, and the words for the notice. */
interface VectorObstacle {
  readonly reason: WordsOnlyReason;
  readonly text: string;
}

/**
 * Which of a mode's signals can run now: a vector signal needs a model, sqlite-vec, and vectors of that model in
 * its layer. Without them a mode falls back to its lexical signals and says why. What stands in a layer's way is
 * read once per store change (two statements a search saved).
 */
export class SignalPlanner {
  private readonly obstacles = new Map<Layer, Promise<VectorObstacle | undefined>>();

  constructor(
    private readonly reads: SearchReads,
    private readonly embedder: Embedder | undefined,
    /** Why there is no embedder (e.g. the model could not load): shown with results of modes that need one. */
    private readonly embedderNotice: string | undefined,
  ) {}

  async plan(mode: ModeName): Promise<SearchPlan> {
    const wanted = modeSignals(mode);
    const found: VectorObstacle[] = [];
    const usable: SignalSpec[] = [];
    for (const spec of wanted) {
      const obstacle = spec.mechanism === 'vector' ? await this.vectorObstacle(spec.layer) : undefined;
      if (obstacle === undefined) usable.push(spec);
      else if (!found.some((o) => o.text === obstacle.text)) found.push(obstacle);
    }
    if (found.length === 0) return { specs: usable };
    const specs = usable.length > 0 ? usable : lexicalFallback(wanted);
    return {
      specs,
      notice: fallbackNotice(found.map((o) => o.text), mode, specs),
      ...(specs.some((s) => s.mechanism === 'vector') ? {} : { wordsOnly: found[0]!.reason }),
    };
  }

  /** The store changed: what stands in each layer's way is read again when next needed. */
  storeChanged(): void {
    this.obstacles.clear();
  }

  private vectorObstacle(layer: Layer): Promise<VectorObstacle | undefined> {
    let known = this.obstacles.get(layer);
    if (!known) {
      this.obstacles.set(layer, (known = this.findVectorObstacle(layer)));
      known.catch(() => this.obstacles.delete(layer)); // a failed read is asked again
    }
    return known;
  }

  /** Why vectors of `layer` cannot be used now, or undefined when they can. */
  private async findVectorObstacle(layer: Layer): Promise<VectorObstacle | undefined> {
    const { embedder, reads } = this;
    if (!embedder) return { reason: 'no-model', text: this.embedderNotice ?? 'No embedding model is configured' };
    if (!reads.vectorsAvailable) return { reason: 'no-vector-extension', text: reads.vectorError ?? 'sqlite-vec is not loaded' };
    const space = await reads.vectorSpace();
    if (!space) return { reason: 'not-embedded', text: 'Nothing has been embedded yet (run the indexer with an embedding model)' };
    if (space.modelId !== embedder.modelId || space.dimension !== embedder.dimension) {
      return { reason: 'not-embedded', text: `The stored vectors come from ${space.modelId} (${space.dimension}-d), not ${embedder.modelId}; re-index to embed again` };
    }
    if (!(await reads.layerHasVectors(layer))) return { reason: 'not-embedded', text: `The ${layer} layer has no vectors (${VECTOR_TABLES[layer]} is empty)` };
    return undefined;
  }
}

/** `plan` once the model failed on this query: its lexical signals, saying why. */
export function withoutModel(plan: SearchPlan, mode: ModeName, err: Error): SearchPlan {
  const specs = lexicalFallback(plan.specs);
  return { specs, wordsOnly: 'model-failed', notice: fallbackNotice([err.message], mode, specs) };
}

function fallbackNotice(reasons: readonly string[], mode: ModeName, specs: readonly SignalSpec[]): string {
  return `${reasons.map((r) => r.replace(/\.+$/, '')).join('; ')}. ${mode} falls back to lexical search (${specs.map(signalName).join(' + ')}).`;
}
