import { existsSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import * as path from 'node:path';
import { RecallError } from '../errors';
import type { Embedder } from './embedder';
import { TransformersEmbedder } from './transformersEmbedder';
import { USE_LITE_MODEL, UseEmbedder } from './useEmbedder';
import { BUILTIN_MODEL, BUILTIN_MODEL_DIR, isBuiltinModel, WordVectorEmbedder } from './wordVectorEmbedder';

export { BUILTIN_MODEL, isBuiltinModel };

/** The paper's model (384-d); downloaded from the Hugging Face hub on first use. */
export const DEFAULT_EMBED_MODEL = 'Xenova/all-MiniLM-L6-v2';

/**
 * A model setting as the user writes it -> what TransformersEmbedder loads: an absolute folder for a
 * path (absolute, `./…`, `~/…`, or an existing folder), else a hub id (`org/name`). `built-in` stays itself,
 * never a folder of that name.
 */
export function resolveModelSpec(spec: string, cwd = process.cwd()): string {
  if (spec === BUILTIN_MODEL) return spec;
  if (spec.startsWith('~/')) return path.join(homedir(), spec.slice(2));
  if (path.isAbsolute(spec) || spec.startsWith('./') || spec.startsWith('../')) return path.resolve(cwd, spec);
  const local = path.resolve(cwd, spec);
  return statSync(local, { throwIfNoEntry: false })?.isDirectory() ? local : spec;
}

/** The model a command names: its --embed-model, else $AGENT_RECALL_EMBED_MODEL; undefined when neither is set. */
export function namedModel(flag: string | undefined): string | undefined {
  return flag ?? process.env['AGENT_RECALL_EMBED_MODEL'];
}

/** A setting naming a hub model (`org/name`), not a local folder nor the built-in model. */
export function isHubModel(spec: string, cwd = process.cwd()): boolean {
  if (spec === BUILTIN_MODEL) return false;
  const resolved = resolveModelSpec(spec, cwd);
  return resolved === spec && !path.isAbsolute(spec);
}

/**
 * The built-in model's folder, found upward from this code: beside the bundles (dist/extension.js, dist/cli.js)
 * or, for the compiled tests (out/src/core/embed), in the repository's dist/.
 */
export function builtinModelDir(from = __dirname): string {
  for (let dir = from, i = 0; i < 5; i++, dir = path.dirname(dir)) {
    const candidate = path.join(dir, BUILTIN_MODEL_DIR);
    if (existsSync(path.join(candidate, 'manifest.json'))) return candidate;
  }
  return path.join(path.dirname(from), BUILTIN_MODEL_DIR);
}

export interface OpenedEmbedder {
  readonly embedder?: Embedder;
  /** Why there is none: search stays lexical and shows this. */
  readonly notice?: string;
}

/**
 * Loads the embedding model, or explains why not. `built-in` (wordVectorEmbedder.ts) from the extension's own
 * files; `use-lite` (useEmbedder.ts) only with `inThread`; `offline`: a hub
 * model only from the cache, never downloaded. Never throws for an unusable model: a missing folder,
 * no network for a hub model or a broken file all leave search lexical with a notice.
 */
export async function openEmbedder(spec: string, options: { cacheDir?: string; cwd?: string; inThread?: boolean; offline?: boolean } = {}): Promise<OpenedEmbedder> {
  try {
    if (spec === BUILTIN_MODEL) return { embedder: await WordVectorEmbedder.load(builtinModelDir()) };
    if (spec === USE_LITE_MODEL) {
      // runs on the calling thread: the command line may, the extension host must not
      if (!options.inThread) return { notice: `${USE_LITE_MODEL} is a benchmark model for the command line; semantic search is off.` };
      return { embedder: await UseEmbedder.load() };
    }
    const model = resolveModelSpec(spec, options.cwd);
    return {
      embedder: await TransformersEmbedder.load({ model, ...(options.cacheDir ? { cacheDir: options.cacheDir } : {}), ...(options.offline ? { offline: true } : {}) }),
    };
  } catch (err) {
    if (err instanceof RecallError && err.code === 'model-unavailable') return { notice: err.message };
    throw err;
  }
}
