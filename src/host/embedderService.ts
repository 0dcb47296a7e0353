import { existsSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { isBuiltinModel, isHubModel, type OpenedEmbedder, openEmbedder } from '../core/embed/openEmbedder';
import type { Config } from './config';
import { Disposable } from './lifecycle';
import { log } from './log';

/** Whether semantic search runs, with which model, or why not: what the Index view, status bar and panel say. */
export type SemanticState =
  | { readonly on: true; readonly model: string; readonly dimension: number }
  | { readonly on: false; readonly loading: true; readonly model: string }
  | {
      readonly on: false;
      readonly loading?: false;
      readonly reason: string;
      /** What turns it on: choose a model, or download the configured hub model (asks first). */
      readonly fix?: 'choose-model' | 'download';
      /** Not asked yet: the model is loaded when indexing starts (after the store opens, which may take a while). */
      readonly pending?: true;
    };

/** A model as people read it: the built-in one by that name, not its versioned id. */
export function modelName(model: string): string {
  return isBuiltinModel(model) ? 'the built-in model' : model;
}

/**
 * The configured embedding model (agentRecall.embed.model), loaded once per setting value (a transformers.js
 * model in its worker thread). Nothing reaches the network unasked: a hub model that is not in the extension's cache yet is
 * downloaded only after the user ran "Choose Semantic Search Model" (which says what is fetched from where);
 * until then, and whenever a model cannot load, search stays lexical and `state` says why.
 */
export class EmbedderService extends Disposable {
  private spec: string | undefined;
  private loading: Promise<OpenedEmbedder> | undefined;
  private snapshot: SemanticState = { on: false, reason: 'checked when indexing starts', pending: true };
  /** Hub ids the user agreed to download in this session. */
  private readonly downloadAllowed = new Set<string>();
  private readonly changed = this.register(new vscode.EventEmitter<void>());
  readonly onDidChange = this.changed.event;

  constructor(
    private readonly cacheDir: string | undefined,
    private readonly config: Config,
  ) {
    super();
  }

  /** The last known state (never waits for a model). */
  get state(): SemanticState {
    return this.snapshot;
  }

  /** The embedder for the current setting, or a notice saying why there is none. */
  get(): Promise<OpenedEmbedder> {
    const spec = this.config.embedModel;
    if (spec !== this.spec || !this.loading) {
      this.release();
      this.spec = spec;
      this.loading = this.open(spec);
    }
    return this.loading;
  }

  /** Downloads (when needed) and loads the configured hub model; the caller has asked the user. */
  async download(): Promise<OpenedEmbedder> {
    const spec = this.config.embedModel;
    this.downloadAllowed.add(spec);
    this.release();
    this.spec = spec;
    this.loading = this.open(spec, vscode.ProgressLocation.Notification);
    return this.loading;
  }

  /** A hub id (not a local folder) whose files are not in the extension's cache yet. */
  needsDownload(spec = this.config.embedModel): boolean {
    return spec !== '' && isHubModel(spec) && !this.isCached(spec) && !this.downloadAllowed.has(spec);
  }

  private open(spec: string, location = vscode.ProgressLocation.Window): Promise<OpenedEmbedder> {
    if (spec === '') {
      return Promise.resolve(this.settle({ notice: 'Semantic search is off: the embedding model setting (agentRecall.embed.model) is empty.' }, 'choose-model'));
    }
    if (this.needsDownload(spec)) {
      const notice = `Semantic search is off: the embedding model ${spec} is not on this machine. "Agent Recall: Choose Semantic Search Model" downloads it once from huggingface.co.`;
      return Promise.resolve(this.settle({ notice }, 'download'));
    }
    this.setState({ on: false, loading: true, model: spec });
    return Promise.resolve(
      vscode.window.withProgress({ location, title: `Agent Recall: loading ${modelName(spec) === spec ? `the embedding model ${spec}` : modelName(spec)}` }, () =>
        openEmbedder(spec, this.cacheDir ? { cacheDir: this.cacheDir } : {}),
      ),
    ).then((opened) => this.settle(opened, 'choose-model'));
  }

  private settle(opened: OpenedEmbedder, fix: 'choose-model' | 'download'): OpenedEmbedder {
    if (opened.embedder) {
      log.info(`Embedding model ${opened.embedder.modelId} loaded (${opened.embedder.dimension}-d).`);
      this.setState({ on: true, model: opened.embedder.modelId, dimension: opened.embedder.dimension });
    } else {
      const reason = (opened.notice ?? 'the embedding model did not load').replace(/^Semantic search is off:\s*/, '');
      log.warn(opened.notice ?? reason);
      this.setState({ on: false, reason, fix });
    }
    return opened;
  }

  private setState(state: SemanticState): void {
    this.snapshot = state;
    this.changed.fire();
  }

  /** transformers.js keeps a downloaded hub model as `<cacheDir>/<org>/<name>/` with its config and ONNX files. */
  private isCached(spec: string): boolean {
    if (!this.cacheDir) return false;
    const dir = path.join(this.cacheDir, ...spec.split('/'));
    return existsSync(path.join(dir, 'config.json')) && existsSync(path.join(dir, 'onnx'));
  }

  private release(): void {
    const previous = this.loading;
    this.loading = undefined;
    void previous?.then((o) => o.embedder?.dispose()).catch(() => undefined);
  }

  override dispose(): void {
    this.release();
    super.dispose();
  }
}
