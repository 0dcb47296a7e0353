import * as vscode from 'vscode';
import type { IndexOptions } from '../core/memory';
import { userDataDirOf } from '../core/sources/agentRoots';
import { defaultDiscovery, transcriptRoots } from '../core/sources/discover';
import type { Config } from './config';

/** Which transcripts belong to this window: the open folders, the agents' default folders, the settings. */

/** The open workspace folders on disk. */
export function workspaceFolders(): string[] {
  return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
}

export function workspaceDiscovery(config: Config, storageDir: vscode.Uri | undefined, roots = workspaceFolders()): IndexOptions['discover'] {
  // this editor's user-data folder is found from our storage folder, never guessed
  const own = storageDir ? userDataDirOf(storageDir.fsPath) : undefined;
  return defaultDiscovery({
    workspaceRoots: roots,
    claudeRoots: config.claudeRoots,
    codexRoots: config.codexRoots,
    extraRoots: config.extraRoots,
    includeSubagents: config.includeSubagents,
    allProjects: config.scope === 'allHistory',
    userDataDirs: [...new Set([...(own ? [own] : []), ...config.userDataDirs])],
  });
}

/** Folders outside the workspace that hold transcripts (what live indexing watches). */
export function watchedTranscriptRoots(config: Config, storageDir: vscode.Uri | undefined): string[] {
  return transcriptRoots(workspaceDiscovery(config, storageDir));
}
