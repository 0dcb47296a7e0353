import * as vscode from 'vscode';
import { type OpenedEmbedder, openEmbedder } from '../core/embed/openEmbedder';
import type { Config } from './config';
import { Disposable } from './lifecycle';
import { log } from './log';

/**
 * The configured embedding model (agentRecall.embed.model), loaded once per setting value in its worker
 * thread, with a progress indicator (a hub model downloads into the extension's global storage on first
 * use). A model that cannot load is logged once and reported as a notice, which search results show:
 * search stays lexical, nothing fails.
 */
export class EmbedderService extends Disposable {
  private spec: string | undefined;
  private loading: Promise<OpenedEmbedder> | undefined;

  constructor(
    private readonly cacheDir: string | undefined,
    private readonly config: Config,
  ) {
    super();
  }

  /** The embedder for the current setting, or a notice saying why there is none. */
  get(): Promise<OpenedEmbedder> {
    const spec = this.config.embedModel;
    if (spec !== this.spec || !this.loading) {
      this.release();
      this.spec = spec;
      this.loading = spec === '' ? Promise.resolve({ notice: 'Semantic search is off (agentRecall.embed.model is empty).' }) : this.load(spec);
    }
    return this.loading;
  }

  private load(spec: string): Promise<OpenedEmbedder> {
    return Promise.resolve(
      vscode.window.withProgress(
        { location: vscode.ProgressLocation.Window, title: `Agent Recall: loading the embedding model ${spec}` },
        () => openEmbedder(spec, this.cacheDir ? { cacheDir: this.cacheDir } : {}),
      ),
    ).then((opened) => {
      if (opened.notice) log.warn(opened.notice);
      else log.info(`Embedding model ${opened.embedder!.modelId} loaded (${opened.embedder!.dimension}-d).`);
      return opened;
    });
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
