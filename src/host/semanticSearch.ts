import * as vscode from 'vscode';
import { BUILTIN_MODEL, DEFAULT_EMBED_MODEL } from '../core/embed/openEmbedder';
import type { Config } from './config';
import type { EmbedderService } from './embedderService';
import type { IndexService } from './indexService';

/**
 * "Choose Semantic Search Model": the one place that lets a model reach the network. It says what is fetched from
 * where before anything is, then loads the model and embeds the index. The built-in model and a local model
 * folder need no network. A configured hub model not downloaded yet is offered for download first.
 */
export async function chooseSemanticModel(embedders: EmbedderService, index: IndexService, config: Config): Promise<void> {
  if (!embedders.needsDownload()) {
    const choice = await vscode.window.showInformationMessage(
      'Which model should semantic search use?',
      {
        modal: true,
        detail: `The built-in model (word vectors shipped with the extension) needs no download. Or download ${DEFAULT_EMBED_MODEL} (a sentence model, about 23 MB, once, from huggingface.co into the extension's storage), or choose a local model folder (config.json, tokenizer.json, onnx/model.onnx).`,
      },
      'Use Built-in Model',
      'Download Model',
      'Choose Local Folder…',
    );
    if (choice === 'Choose Local Folder…') return chooseLocalFolder(config);
    // the setting change re-runs indexing with the new model (extension.ts onConfigChange)
    if (choice === 'Use Built-in Model') return config.setEmbedModel(BUILTIN_MODEL);
    if (choice !== 'Download Model') return;
    await config.setEmbedModel(DEFAULT_EMBED_MODEL);
  } else {
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
