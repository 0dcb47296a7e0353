import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import type { Embedder } from '../core/embed/embedder';
import { namedModel, openEmbedder } from '../core/embed/openEmbedder';
import { RecallError } from '../core/errors';
import { canonicalFolder, extensionStorageFolders, findWorkspaceStore } from '../core/storeLocation';
import { countTokens } from '../core/tokens';
import { keptTokenTable } from './keptTable';
import { ScopedMemory } from './scopedMemory';
import { serveStdio } from './server';

export interface McpOptions {
  readonly db?: string | undefined;
  readonly workspace?: readonly string[] | undefined;
  /** The store the extension keeps for the workspace's window in `allHistory` scope, served whole. */
  readonly 'all-history'?: boolean | undefined;
  /** On by default: the server's answers go to other agents and, through them, often to a remote model. */
  readonly redact?: boolean | undefined;
  /** Turns redaction off (`--redact` stays accepted, as the extension and older configurations pass it). */
  readonly 'no-redact'?: boolean | undefined;
  /** The embedding model (hub id or folder); else $AGENT_RECALL_EMBED_MODEL; else none: words-only search. */
  readonly 'embed-model'?: string | undefined;
  /** Where a hub model was downloaded (the extension's cache); the server itself never downloads. */
  readonly 'model-cache'?: string | undefined;
}

export interface McpHooks {
  /** Runs once the first tool's answer is on its way (the launcher keeps V8's code then: codeCache.ts). */
  readonly afterFirstAnswer?: () => void;
  /** Where a start keeps what the next one reads instead of making it (the token counter's table: keptTable.ts). */
  readonly keepIn?: string;
}

/** `mcp`'s own options: `--workspace` repeats for a multi-root workspace. */
export function parseMcpArgs(args: string[]): McpOptions {
  try {
    return parseArgs({
      args,
      options: {
        db: { type: 'string' },
        workspace: { type: 'string', multiple: true },
        'all-history': { type: 'boolean' },
        redact: { type: 'boolean' },
        'no-redact': { type: 'boolean' },
        'embed-model': { type: 'string' },
        'model-cache': { type: 'string' },
      },
    }).values;
  } catch (err) {
    if ((err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) throw new RecallError('bad-argument', `mcp: ${(err as Error).message}`);
    throw err;
  }
}

/**
 * `agent-recall mcp`: serves a workspace's memory over stdio until the client disconnects. The store is
 * `--db FILE`, or the one the extension keeps for `--workspace DIR` (storeLocation.ts). With a workspace,
 * nothing outside its folders is ever returned, whatever else the file holds.
 */
export async function mcpCommand(args: string[], err: (s: string) => void, hooks: McpHooks = {}): Promise<number> {
  const options = parseMcpArgs(args);
  if (options.redact && options['no-redact']) throw new RecallError('bad-argument', 'mcp: give --redact (the default) or --no-redact, not both.');
  const redact = !options['no-redact'];
  const named = (options.workspace ?? []).map((w) => canonicalFolder(w));
  const scope = options['all-history'] ? 'allHistory' : 'workspace';
  if (scope === 'allHistory' && (options.db || named.length === 0)) throw new RecallError('bad-argument', 'mcp: --all-history names the store of --workspace DIR (not --db FILE).');
  let file: string;
  if (options.db) file = path.resolve(options.db);
  else if (named.length > 0) {
    const found = await findWorkspaceStore(named, undefined, scope);
    if (!found) {
      throw new RecallError(
        'bad-argument',
        `No Agent Recall ${scope === 'allHistory' ? 'all-history ' : ''}store for ${named.join(', ')}. Open the folder in VS Code with Agent Recall installed (it indexes the ` +
          `transcripts there), or index one yourself (agent-recall index --root DIR --db FILE --workspace DIR) and pass --db FILE. ` +
          `Looked in: ${extensionStorageFolders().join(', ')}.`,
      );
    }
    file = found.file;
    if (found.others.length) err(`agent-recall mcp: using ${file} (the newest of ${found.others.length + 1} stores of this workspace).`);
  } else {
    throw new RecallError('bad-argument', 'mcp needs --workspace DIR (the folder whose memory to serve) or --db FILE.');
  }
  // all history is every project's: its workspace names the store, not a boundary
  const folders = scope === 'allHistory' ? [] : named;
  // The first answer waits for nothing it does not need: the model loads beside the store's opening and the
  // client's handshake; once the store is open, what the first search reads of it is read (ScopedMemory) while this
  // thread builds the token counter's table (the answers' budgets; built on its first count, unless a start before
  // kept it); and the searcher warms after the first answer.
  const spec = namedModel(options['embed-model']);
  const model = loadModel(spec, options, err);
  const tokenTable = keptTokenTable(hooks.keepIn);
  try {
    const memory = await ScopedMemory.open(file, folders.length ? folders : undefined, spec ? model : undefined);
    try {
      countTokens(' ');
      // a model that failed to load fails each search with its reason (the tool's error answer)
      model.then((embedder) => {
        const how = [redact ? 'secrets redacted' : 'secrets NOT redacted (--no-redact)', ...(embedder ? [`searching with ${embedder.modelId} too`] : [])];
        err(`agent-recall mcp: serving ${file}${folders.length ? ` for ${folders.join(', ')}` : ''}${how.map((h) => `, ${h}`).join('')}.`);
      }, () => undefined);
      await serveStdio(memory, { redact }, packageVersion(), err, () => {
        hooks.afterFirstAnswer?.();
        tokenTable.keep();
      });
      return 0;
    } finally {
      await memory.close();
    }
  } finally {
    await (await model.catch(() => undefined))?.dispose();
  }
}

/**
 * The model `spec` names (--embed-model or $AGENT_RECALL_EMBED_MODEL: namedModel), loaded once, offline: a hub model not in
 * --model-cache, or one that fails to load, leaves search words-only with one line on stderr.
 */
async function loadModel(spec: string | undefined, options: McpOptions, err: (s: string) => void): Promise<Embedder | undefined> {
  if (!spec) return undefined;
  const cacheDir = options['model-cache'];
  const opened = await openEmbedder(spec, { offline: true, ...(cacheDir ? { cacheDir: path.resolve(cacheDir) } : {}) });
  if (!opened.embedder) err(`agent-recall mcp: searching by words only. ${opened.notice ?? `The embedding model ${spec} did not load.`}`);
  return opened.embedder;
}

/** The version in package.json next to the bundle (dist/cli.js), for the server's handshake. */
function packageVersion(): string {
  try {
    return (JSON.parse(readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return '0.0.0';
  }
}
