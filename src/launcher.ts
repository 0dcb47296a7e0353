import { accessSync, constants, existsSync } from 'node:fs';
import * as nodeModule from 'node:module';
import * as path from 'node:path';
import { type CachedBundle, requireWithCodeCache } from './codeCache';
import { setServerFlags } from './processFlags';
import { runAsProcess } from './processMain';

/**
 * `agent-recall` (dist/cli.js): loads the bundle of the command asked for, no more. The MCP server's (dist/mcp.js)
 * holds what serving needs; the other commands' (dist/commands.js) the rest: an agent's first answer waited for
 * Node to read and compile 2.3 MB of one bundle (esbuild.mjs).
 */
/** What a start keeps for the next (V8's code, the token counter's table): beside the bundles, rebuilt with them. */
const KEPT = path.join(__dirname, 'start-cache');
const [command, ...rest] = process.argv.slice(2);
if (command === 'mcp') {
  // before V8 reads the kept code: the flags are part of what it checks the code against (the same at every start)
  setServerFlags();
  const bundle = load<typeof import('./mcp/command')>('mcp.js');
  const hooks = { afterFirstAnswer: bundle.keep, keepIn: KEPT };
  runAsProcess(() => bundle.exports.mcpCommand(rest, (s) => process.stderr.write(`${s}\n`), hooks));
} else {
  const bundle = load<typeof import('./cli')>('commands.js');
  process.once('exit', bundle.keep);
  runAsProcess(() => bundle.exports.main(process.argv.slice(2)));
}

/**
 * A bundle beside this one, with V8's code for it kept between runs (codeCache.ts): the code of the functions a
 * command ran, which Node's own compile cache (22.1 and later) does not keep: on Node 24 the MCP server's first answer
 * cost 330 ms of CPU with Node's, 270 with this one. Node's is still on for what bundles require (the vendor files,
 * SQLite's JavaScript), and takes the bundle too where this folder cannot be written (a read-only install).
 */
function load<T>(name: string): Pick<CachedBundle<T>, 'exports' | 'keep'> {
  const enableCompileCache = (nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache;
  enableCompileCache?.();
  const file = path.join(__dirname, name);
  if (enableCompileCache && !writable(KEPT)) return { exports: require(file) as T, keep: () => undefined };
  return requireWithCodeCache<T>(file, KEPT);
}

/** Whether `dir` can be written, or made where it is missing. */
function writable(dir: string): boolean {
  try {
    accessSync(existsSync(dir) ? dir : path.dirname(dir), constants.W_OK);
    return true;
  } catch {
    return false;
  }
}
