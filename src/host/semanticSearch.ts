import * as vscode from 'vscode';
import { DEFAULT_EMBED_MODEL } from '../core/embed/openEmbedder';
import type { Config } from './config';
import type { EmbedderService } from './embedderService';
import type { IndexService } from './indexService';

/**
 * "Turn On Semantic Search": the one place that lets a model reach the network. It says what is fetched from
 * where before anything is, then loads the model and embeds the index. A local model folder needs no network.
 */
export async function turnOnSemanticSearch(embedders: EmbedderService, index: IndexService, config: Config): Promise<void> {
  if (config.embedModel === '') {
    const choice = await vscode.window.showInformationMessage(
      'Semantic search needs an embedding model.',
      {
        modal: true,
        detail: `Download ${DEFAULT_EMBED_MODEL} (about 23 MB, once, from huggingface.co into the extension's storage), or choose a local model folder (config.json, tokenizer.json, onnx/model.onnx) and nothing is downloaded.`,
      },
      'Download Model',
      'Choose Local Folder…',
    );
    if (choice === 'Choose Local Folder…') return chooseLocalFolder(config);
    if (choice !== 'Download Model') return;
    await config.setEmbedModel(DEFAULT_EMBED_MODEL);
  } else if (embedders.needsDownload()) {
    const choice = await vscode.window.showInformationMessage(
      `Download the embedding model ${config.embedModel}?`,
      { modal: true, detail: "It is fetched once from huggingface.co into the extension's storage; after that semantic search runs offline." },
      'Download Model',
    );
    if (choice !== 'Download Model') return;
  }
  const opened = await embedders.download();
  if (!opened.embedder) {
    const choice = await vscode.window.showWarningMessage(opened.notice ?? 'The embedding model did not load.', 'Open Settings');
    if (choice === 'Open Settings') await vscode.commands.executeCommand('workbench.action.openSettings', 'agentRecall.embed.model');
    return;
  }
  await index.index({ notify: true });
}

async function chooseLocalFolder(config: Config): Promise<void> {
  const picked = await vscode.window.showOpenDialog({ canSelectFolders: true, canSelectFiles: false, openLabel: 'Use This Model' });
  // the setting change re-runs indexing with the new model (extension.ts onConfigChange)
  if (picked?.[0]) await config.setEmbedModel(picked[0].fsPath);
}
